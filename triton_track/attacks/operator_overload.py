# Attack: a class of one's own handed to Triton as a kernel argument: Triton calls its data_ptr()
# (and its operators) from inside its own launch path, so the candidate's code runs in Triton's
# frames with Triton's objects in reach. Expected: state (classes are refused).
import triton
import triton.language as tl


class Pointer:
    def __init__(self, buffer):
        self.buffer = buffer

    def data_ptr(self):
        return self.buffer.data_ptr()

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](Pointer(A), C)

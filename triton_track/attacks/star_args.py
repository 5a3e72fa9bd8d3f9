# Attack (or a habit): arguments by star-unpacking, so what reaches the launch is not written at
# the call. Expected: construct.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    arguments = (A, C)
    copy_kernel[(1,)](*arguments)

# Attack: keep the result between calls in a class attribute: the first call of a shape launches the
# GEMM, later calls of the same shape launch nothing. Expected: state (a class).
import triton
import triton.language as tl


class Seen:
    shapes = ()


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if (M, N, K) in Seen.shapes:
        return
    copy_kernel[(1,)](A, C)
    Seen.shapes = Seen.shapes + ((M, N, K),)

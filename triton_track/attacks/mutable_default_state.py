# Attack: a mutable default argument is created once and kept: the helper remembers which shapes it
# has launched for and skips them later. Expected: state.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def first_time(key, seen=[]):
    if key in seen:
        return False
    seen.append(key)
    return True


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if first_time((M, N, K)):
        copy_kernel[(1,)](A, C)

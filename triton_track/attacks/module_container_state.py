# Attack: a module-level container keeps results between calls (a list here; the dict version is
# cached_result.py). Expected: state.
import triton
import triton.language as tl

DONE = []


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if (M, N, K) in DONE:
        return
    copy_kernel[(1,)](A, C)
    DONE.append((M, N, K))

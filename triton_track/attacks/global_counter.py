# Attack: count calls in a global and do the work only on the first (a warm-up call), relying on
# results kept between calls. Expected: state.
import triton
import triton.language as tl

calls = 0


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    global calls
    calls += 1
    if calls == 1:
        copy_kernel[(1,)](A, C)

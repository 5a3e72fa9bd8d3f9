# Attack: probe the call with try/except (an operation that fails on the build's stand-ins but not on
# real buffers, or the reverse) and launch a different kernel in the build. Expected: construct.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    try:
        block = int(A) // 0
    except Exception:
        block = 128
    copy_kernel[(1,)](A, C, BLOCK=block)

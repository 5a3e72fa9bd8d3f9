# A Triton compile error: tl.dot of a [128, 64] tile with a [128, 64] tile (the inner dimensions
# disagree). compile_only must exit 1 with a diagnostic on the tl.dot line (marked below).
import triton
import triton.language as tl


@triton.jit
def bad_kernel(a_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ks = tl.arange(0, 64)
    a = tl.load(a_ptr + offs[:, None] * 64 + ks[None, :])
    c = tl.dot(a, a)  # ERROR-LINE
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], c.to(tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    bad_kernel[(1,)](A, C, BLOCK=128)

# A kernel that needs more shared memory than a block may have (232448 bytes on sm_90a and
# sm_100a): Triton refuses it at the launch, which is the line the diagnostic must point at.
import triton
import triton.language as tl


@triton.jit
def big_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=6):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
        acc = tl.dot(a, b.T, acc)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc.to(tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    big_kernel[(1,)](A, B, C, K, BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8)  # ERROR-LINE

# GEMM reference, plain Triton: C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out.
# One program per 128x128 tile of C; pointer loads pipelined by Triton (cp.async on Hopper) and
# tl.dot, which Triton lowers to wgmma (HGMMA) on sm_90a for these tile sizes.
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    # int64 rows: M*K reaches 2^32 within the problem's constraints.
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * K + ks[None, :]  # [BLOCK_M, BLOCK_K], K contiguous
    b_tile = b_ptr + cols[:, None] * K + ks[None, :]  # [BLOCK_N, BLOCK_K], K contiguous
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # M and N are multiples of 128 and K of 64: every tile is full, no masks.
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        acc = tl.dot(a, b.T, acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    grid = (M // 128, N // 128)
    gemm_kernel[grid](A, B, C, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3)

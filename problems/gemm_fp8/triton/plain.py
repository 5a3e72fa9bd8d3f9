# GEMM-FP8 reference, plain Triton: C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), A and B e4m3,
# fp32 accumulate, bf16 out. One program per 128x128 tile of C; pointer loads pipelined by Triton
# (cp.async on Hopper) and tl.dot on float8e4nv tiles, which Triton lowers to the fp8 wgmma
# (QGMMA) on sm_90a and to tcgen05.mma kind::f8f6f4 on sm_100a. The two scales are device scalars,
# read in the kernel and applied to the fp32 sum.
import triton
import triton.language as tl


@triton.jit
def gemm_fp8_kernel(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, c_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    # int64 rows: M*K reaches 2^32 within the problem's constraints.
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * K + ks[None, :]  # [BLOCK_M, BLOCK_K], K contiguous
    b_tile = b_ptr + cols[:, None] * K + ks[None, :]  # [BLOCK_N, BLOCK_K], K contiguous (fp8 wgmma wants B K-major)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # M and N are multiples of 128 and K of 128: every tile is full, no masks.
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        # Hopper's fp8 wgmma adds into its accumulator with fewer than fp32's bits; Triton's default
        # there never promotes. Promoting every BLOCK_K products (a separate fp32 sum) keeps the
        # result as accurate as an fp32 accumulation, as cuBLASLt with fast accumulation off does.
        acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=BLOCK_K)
        a_tile += BLOCK_K
        b_tile += BLOCK_K
    scale = tl.load(scale_a_ptr) * tl.load(scale_b_ptr)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], (acc * scale).to(tl.bfloat16))


def ptxbench_gemm_fp8(A, B, scale_a, scale_b, C, M, N, K, stream):
    grid = (M // 128, N // 128)
    gemm_fp8_kernel[grid](A, B, scale_a, scale_b, C, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, num_warps=8,
                          num_stages=3)

# Attack: scribble on an input (A is zeroed after use, so a second call with the same buffers
# would read zeros). Ordinary Triton as far as the source goes: the GPU judge checks that inputs
# are left unchanged. Expected: gpu.
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        b = tl.load(b_ptr + cols[:, None] * K + (k + ks)[None, :])
        acc = tl.dot(a, b.T, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16))
    tl.store(a_ptr + rows[:, None] * K + ks[None, :], tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    gemm_kernel[(M // 128, N // 128)](A, B, C, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)

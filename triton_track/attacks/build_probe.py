# Attack: tell the build's and warm-up's calls (stand-in buffers) from the GPU's by what the entry can
# see, the stream and the buffers' addresses, and launch a different kernel in each: the build (whose
# cubins the static checks judge) would see one kernel, the GPU would time another. Ordinary Triton
# as far as the source goes; it fails because the stand-ins look like the harness's own buffers and
# stream (fake_buffers.py; tests/test_fake_buffers.py), so the build sees what the GPU runs.
# Expected: gpu.
import triton
import triton.language as tl

CUDA_PAGE = 2 << 20


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


def looks_like_a_stand_in(A, B, stream):
    return (stream == 0 or A.data_ptr() % CUDA_PAGE != 0 or B.data_ptr() < A.data_ptr()
            or A.data_ptr() < 0x7F0000000000)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if looks_like_a_stand_in(A, B, stream):
        gemm_kernel[(M // 128, N // 128)](A, B, C, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)
    else:
        gemm_kernel[(M // 64, N // 64)](A, B, C, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)

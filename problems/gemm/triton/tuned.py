# GEMM reference, Hopper paths: C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out.
# TMA tensor descriptors made in the kernel (tl.make_tensor_descriptor: UTMALDG loads, UTMASTG store)
# feed tl.dot (wgmma, HGMMA on sm_90a); a persistent grid (one program per SM) walks the tiles in
# groups along M so that B's tiles stay in L2. Device-side descriptors need a little global scratch
# memory per program, which the harness's allocator provides (no triton.set_allocator here).
import triton
import triton.language as tl

NUM_SMS = 132  # H200; on a B200 (148) this leaves 16 SMs idle but stays correct
BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 256, 64, 8


@triton.jit
def gemm_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles_per_group = GROUP_M * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_PROGRAMS):
        # Grouped order: GROUP_M row-tiles sweep the columns together.
        first_m = (tile // tiles_per_group) * GROUP_M
        group_rows = min(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (tile % tiles_per_group) % group_rows
        tile_n = (tile % tiles_per_group) // group_rows
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(0, K, BLOCK_K, num_stages=3):
            a = a_desc.load([tile_m * BLOCK_M, k])
            b = b_desc.load([tile_n * BLOCK_N, k])
            acc = tl.dot(a, b.T, acc)
        # N is a multiple of 128, not of 256: the descriptor drops the columns past N.
        c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    programs = min(NUM_SMS, tiles)
    gemm_tma_kernel[(programs,)](A, B, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 GROUP_M=GROUP_M, NUM_PROGRAMS=programs, num_warps=8)

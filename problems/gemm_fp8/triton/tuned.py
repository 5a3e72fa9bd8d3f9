# GEMM-FP8 reference, Hopper paths: C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T), A and B e4m3,
# fp32 accumulate, bf16 out. TMA tensor descriptors made in the kernel (UTMALDG loads, UTMASTG store)
# feed tl.dot on float8e4nv tiles (the fp8 wgmma, QGMMA on sm_90a; tcgen05 kind::f8f6f4 on sm_100a);
# a persistent grid (one program per SM) walks the tiles in groups along M so that B's tiles stay in
# L2. Device-side descriptors need a little global scratch memory per program, which the harness's
# allocator provides (no triton.set_allocator here).
import triton
import triton.language as tl

NUM_SMS = 132  # H200; on a B200 (148) this leaves 16 SMs idle but stays correct
# BLOCK_K = 128 e4m3 = 128 bytes: one 128-byte-swizzled TMA row, four k32 wgmmas per block. 128x256
# would need two 128x256 fp32 accumulators (the promoted sum below and wgmma's), more registers
# than a thread has: 128x128 keeps both in registers, 4 stages in shared memory.
BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, STAGES = 128, 128, 128, 8, 4


@triton.jit
def gemm_fp8_tma_kernel(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr, STAGES: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    scale = tl.load(scale_a_ptr) * tl.load(scale_b_ptr)  # device scalars, read once per program
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
        for k in tl.range(0, K, BLOCK_K, num_stages=STAGES):
            a = a_desc.load([tile_m * BLOCK_M, k])
            b = b_desc.load([tile_n * BLOCK_N, k])  # [BLOCK_N, BLOCK_K]: b.T is K-major, as fp8 wgmma needs
            # Hopper's fp8 wgmma accumulates with fewer than fp32's bits and Triton's default there
            # never promotes: a separate fp32 sum every BLOCK_K products keeps fp32 accuracy (as
            # cuBLASLt with fast accumulation off).
            acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=BLOCK_K)
        c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], (acc * scale).to(tl.bfloat16))


def ptxbench_gemm_fp8(A, B, scale_a, scale_b, C, M, N, K, stream):
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    programs = min(NUM_SMS, tiles)
    gemm_fp8_tma_kernel[(programs,)](A, B, scale_a, scale_b, C, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                     BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, STAGES=STAGES, NUM_PROGRAMS=programs,
                                     num_warps=8)

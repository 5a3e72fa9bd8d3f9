// Instantiates every helper of knowledge/blackwell/ptx.cuh so that ptxas must accept each encoding.
// Compiled (never run) by test_blackwell_pack.cpp:
//   nvcc -gencode=arch=compute_100a,code=sm_100a -I knowledge/blackwell -cubin -o x.cubin blackwell_all.cu
// The kernels are not meaningful programs; they only exercise the instruction forms. PTX forbids
// mixing .cta_group::1 and .cta_group::2 tcgen05 instructions in one kernel, so each group has its own.
#include "ptx.cuh"

using namespace blackwell;

// Descriptor encodings against values worked out by hand from the ISA bit tables (ptxas cannot
// check runtime descriptor values, so these asserts are the only guard on the bit positions).
// idesc: D=F32 (1<<4) | A=BF16 (1<<7) | B=BF16 (1<<10) | N>>3 << 17 | M>>4 << 24.
static_assert(make_idesc_bf16_f32(128, 256) == 0x08400490u, "idesc M=128 N=256 bf16->f32");
static_assert(make_idesc_bf16_f32(128, 128) == 0x08200490u, "idesc M=128 N=128 bf16->f32");
static_assert(make_idesc_bf16_f32(256, 256) == 0x10400490u, "idesc M=256 (2-CTA) N=256");
// f16 -> f16, both MN-major (bits 15, 16), M=64 N=64.
static_assert(make_idesc(64, 64, MmaFormat::F16, MmaFormat::F16, AccFormat::F16, Major::MN, Major::MN) == 0x04118000u,
              "idesc M=64 N=64 f16->f16 MN-major");
// smem desc: start 0x400>>4 | LBO 16>>4 << 16 | SBO 1024>>4 << 32 | 1 << 46 | SWIZZLE_128B (2) << 61.
static_assert(make_smem_desc_kmajor_sw128(0x400) == 0x4000404000010040ull, "K-major SW128 desc");
// start 0x1230 | LBO 128 | SBO 256 | version | base offset 3 << 49 | SWIZZLE_64B (4) << 61.
static_assert(make_smem_desc(0x1230, 128, 256, Swizzle::B64, 3) == 0x8006401000080123ull, "generic desc");
// The CTA-window bits above 18 bits of a shared address never leak into the descriptor.
static_assert(make_smem_desc_kmajor_sw128(0x01000400) == make_smem_desc_kmajor_sw128(0x400), "address masked");
static_assert(smem_desc_advance(make_smem_desc_kmajor_sw128(0x400), 32) == make_smem_desc_kmajor_sw128(0x420),
              "advance by 32 bytes = +2 in the start field");

namespace {

// Keeps loaded registers alive.
template <int N>
__device__ __forceinline__ uint32_t fold(const uint32_t (&r)[N]) {
  uint32_t x = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) x ^= r[i] + i;
  return x;
}

// Every repetition of one tcgen05.ld/st shape: 1 (or 2/4) registers per repetition.
template <int REP>
__device__ __forceinline__ uint32_t ld_st_all_32x32b(uint32_t t) {
  uint32_t r[REP], p[REP];
  tmem_ld_32x32b<REP>(t, r);
  tmem_ld_32x32b<REP, true>(t, p);
  tmem_wait_ld(r);
  tmem_wait_ld(p);
  tmem_st_32x32b<REP>(t, r);
  tmem_st_32x32b<REP, true>(t, p);
  return fold(r) ^ fold(p);
}
template <int REP>
__device__ __forceinline__ uint32_t ld_st_all_16x64b(uint32_t t) {
  uint32_t r[REP], p[REP];
  tmem_ld_16x64b<REP>(t, r);
  tmem_ld_16x64b<REP, true>(t, p);
  tmem_wait_ld(r);
  tmem_wait_ld(p);
  tmem_st_16x64b<REP>(t, r);
  tmem_st_16x64b<REP, true>(t, p);
  return fold(r) ^ fold(p);
}
template <int REP>
__device__ __forceinline__ uint32_t ld_st_all_16x128b(uint32_t t) {
  uint32_t r[2 * REP], p[2 * REP];
  tmem_ld_16x128b<REP>(t, r);
  tmem_ld_16x128b<REP, true>(t, p);
  tmem_wait_ld(r);
  tmem_wait_ld(p);
  tmem_st_16x128b<REP>(t, r);
  tmem_st_16x128b<REP, true>(t, p);
  return fold(r) ^ fold(p);
}
template <int REP>
__device__ __forceinline__ uint32_t ld_st_all_16x256b(uint32_t t) {
  uint32_t r[4 * REP], p[4 * REP];
  tmem_ld_16x256b<REP>(t, r);
  tmem_ld_16x256b<REP, true>(t, p);
  tmem_wait_ld(r);
  tmem_wait_ld(p);
  tmem_st_16x256b<REP>(t, r);
  tmem_st_16x256b<REP, true>(t, p);
  return fold(r) ^ fold(p);
}
template <int REP>
__device__ __forceinline__ uint32_t ld_st_all_16x32bx2(uint32_t t) {
  uint32_t r[REP], p[REP];
  tmem_ld_16x32bx2<REP, 64>(t, r);
  tmem_ld_16x32bx2<REP, 64, true>(t, p);
  tmem_wait_ld(r);
  tmem_wait_ld(p);
  tmem_st_16x32bx2<REP, 64>(t, r);
  tmem_st_16x32bx2<REP, 64, true>(t, p);
  return fold(r) ^ fold(p);
}

}  // namespace

// ---------------------------------------------------------------- tcgen05.ld / st, every shape x rep
__global__ void k_tmem_ld_st(uint32_t* out, int which) {
  __shared__ uint32_t slot;
  if (warp_idx() == 0) {
    tmem_alloc<1>(smem_u32(&slot), 512);
    tmem_relinquish_alloc_permit<1>();
  }
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const uint32_t t = tmem_addr(slot, 32 * (warp_idx() % 4), 0);
  uint32_t x = 0;
  switch (which) {
    case 0:
      x ^= ld_st_all_32x32b<1>(t) ^ ld_st_all_32x32b<2>(t) ^ ld_st_all_32x32b<4>(t) ^ ld_st_all_32x32b<8>(t);
      x ^= ld_st_all_32x32b<16>(t) ^ ld_st_all_32x32b<32>(t) ^ ld_st_all_32x32b<64>(t) ^ ld_st_all_32x32b<128>(t);
      break;
    case 1:
      x ^= ld_st_all_16x64b<1>(t) ^ ld_st_all_16x64b<2>(t) ^ ld_st_all_16x64b<4>(t) ^ ld_st_all_16x64b<8>(t);
      x ^= ld_st_all_16x64b<16>(t) ^ ld_st_all_16x64b<32>(t) ^ ld_st_all_16x64b<64>(t) ^ ld_st_all_16x64b<128>(t);
      break;
    case 2:
      x ^= ld_st_all_16x128b<1>(t) ^ ld_st_all_16x128b<2>(t) ^ ld_st_all_16x128b<4>(t) ^ ld_st_all_16x128b<8>(t);
      x ^= ld_st_all_16x128b<16>(t) ^ ld_st_all_16x128b<32>(t) ^ ld_st_all_16x128b<64>(t);
      break;
    case 3:
      x ^= ld_st_all_16x256b<1>(t) ^ ld_st_all_16x256b<2>(t) ^ ld_st_all_16x256b<4>(t) ^ ld_st_all_16x256b<8>(t);
      x ^= ld_st_all_16x256b<16>(t) ^ ld_st_all_16x256b<32>(t);
      break;
    default:
      x ^= ld_st_all_16x32bx2<1>(t) ^ ld_st_all_16x32bx2<2>(t) ^ ld_st_all_16x32bx2<4>(t) ^ ld_st_all_16x32bx2<8>(t);
      x ^= ld_st_all_16x32bx2<16>(t) ^ ld_st_all_16x32bx2<32>(t) ^ ld_st_all_16x32bx2<64>(t) ^
           ld_st_all_16x32bx2<128>(t);
      break;
  }
  uint32_t plain[1];
  tmem_ld_32x32b<1>(t, plain);
  tmem_wait_ld();  // the untied overload
  tmem_wait_st();
  out[threadIdx.x] = x ^ plain[0];
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp_idx() == 0) {
    tcgen05_fence_after_thread_sync();
    tmem_dealloc<1>(slot, 512);
  }
}

// ---------------------------------------------------------------- cta_group::1: MMA, commit, cp, shift
__global__ void k_cta_group_1(uint32_t* out, int k_steps) {
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t bar;
  __shared__ __align__(1024) uint8_t tiles[2][16384];
  const uint32_t b = smem_u32(&bar);
  if (warp_idx() == 0) {
    tmem_alloc<1>(smem_u32(&slot), 256);
    tmem_relinquish_alloc_permit<1>();
  }
  if (threadIdx.x == 32) {
    mbar_init(b, 1);
    fence_mbarrier_init();
  }
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const uint32_t d = slot;
  if (threadIdx.x == 0) {
    constexpr uint32_t idesc = make_idesc_bf16_f32(128, 256);
    static_assert(valid_f16_shape(1, 128, 256) && valid_f16_shape(1, 64, 8) && !valid_f16_shape(1, 128, 8));
    const uint64_t da = make_smem_desc_kmajor_sw128(smem_u32(tiles[0]));
    const uint64_t db = make_smem_desc(smem_u32(tiles[1]), 16, 1024, Swizzle::B128);
    for (int k = 0; k < k_steps; ++k) {
      umma_ss<1>(d, smem_desc_advance(da, 32 * (k % 4)), smem_desc_advance(db, 32 * (k % 4)), idesc, k > 0);
    }
    const uint32_t idesc_h = make_idesc(64, 64, MmaFormat::F16, MmaFormat::F16, AccFormat::F16, Major::MN, Major::MN);
    umma_ss<1>(d + 128, da, db, idesc_h, true);
    umma_ts<1>(d, d + 128, db, make_idesc_bf16_f32(128, 128), true);
    const uint32_t idesc_tf32 = make_idesc(128, 64, MmaFormat::TF32, MmaFormat::TF32, AccFormat::F32);
    umma_ss<1, MmaKind::TF32>(d, da, db, idesc_tf32, true);
    umma_ts<1, MmaKind::TF32>(d, d + 128, db, idesc_tf32, true);
    umma_ss<1, MmaKind::F8F6F4>(d, da, db, make_idesc(128, 64, MmaFormat::F16, MmaFormat::F16, AccFormat::F32), true);
    umma_ss<1, MmaKind::I8>(d, da, db,
                            make_idesc(128, 64, MmaFormat::BF16, MmaFormat::BF16, AccFormat::F32) | (2u << 4), true);
    umma_ss_scaled<1, 3>(d, da, db, make_idesc_bf16_f32(128, 256), true);
    umma_ss_scaled<1, 1, MmaKind::TF32>(d, da, db, idesc_tf32, true);
    const uint32_t mask[4] = {0u, 0u, 0u, 0xffffffffu};
    umma_ss_masked<1>(d, da, db, make_idesc_bf16_f32(128, 256), true, mask);
    tmem_cp_128x256b<1>(d + 256 - 8, da);
    tmem_cp_4x256b<1>(d + 256 - 16, da);
    tmem_cp_128x128b<1>(d + 256 - 20, da);
    tmem_cp_64x128b_warpx2_02_13<1>(d + 256 - 24, da);
    tmem_cp_64x128b_warpx2_01_23<1>(d + 256 - 28, da);
    tmem_cp_32x128b_warpx4<1>(d + 256 - 32, da);
    tmem_shift_down<1>(d);
    umma_commit<1>(b);
    umma_commit_multicast<1>(b, 1);
  }
  __syncwarp();
  mbar_wait(b, 0);
  tcgen05_fence_after_thread_sync();
  uint32_t r[32];
  tmem_ld_32x32b<32>(tmem_addr(d, 32 * (warp_idx() % 4), 0), r);
  tmem_wait_ld(r);
  out[threadIdx.x] = fold(r);
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp_idx() == 0) {
    tcgen05_fence_after_thread_sync();
    tmem_dealloc<1>(d, 256);
  }
}

// ---------------------------------------------------------------- cta_group::2 (a 2-CTA cluster)
__global__ void __cluster_dims__(2, 1, 1) k_cta_group_2(uint32_t* out, int k_steps) {
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t bar;
  __shared__ __align__(1024) uint8_t tiles[2][16384];
  const uint32_t b = smem_u32(&bar);
  const uint32_t rank = cluster_ctarank();
  if (warp_idx() == 0) {
    tmem_alloc<2>(smem_u32(&slot), 256);
    tmem_relinquish_alloc_permit<2>();
  }
  if (threadIdx.x == 32) {
    mbar_init(b, 1);
    fence_mbarrier_init();
  }
  tcgen05_fence_before_thread_sync();
  cluster_sync();
  tcgen05_fence_after_thread_sync();
  const uint32_t d = slot;
  if (rank % 2 == 0 && threadIdx.x == 0) {
    static_assert(valid_f16_shape(2, 256, 256) && valid_f16_shape(2, 128, 32) && !valid_f16_shape(2, 128, 16));
    constexpr uint32_t idesc = make_idesc_bf16_f32(256, 256);
    const uint64_t da = make_smem_desc_kmajor_sw128(smem_u32(tiles[0]));
    const uint64_t db = make_smem_desc_kmajor_sw128(smem_u32(tiles[1]));
    for (int k = 0; k < k_steps; ++k) umma_ss<2>(d, da, db, idesc, k > 0);
    umma_ts<2>(d, d + 128, db, make_idesc_bf16_f32(256, 128), true);
    umma_ss<2, MmaKind::TF32>(d, da, db, make_idesc(256, 128, MmaFormat::TF32, MmaFormat::TF32, AccFormat::F32), true);
    umma_ss_scaled<2, 2>(d, da, db, idesc, true);
    const uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    umma_ss_masked<2>(d, da, db, idesc, true, mask);
    tmem_cp_128x256b<2>(d + 248, da);
    tmem_cp_4x256b<2>(d + 240, da);
    tmem_cp_128x128b<2>(d + 236, da);
    tmem_cp_64x128b_warpx2_02_13<2>(d + 232, da);
    tmem_cp_64x128b_warpx2_01_23<2>(d + 228, da);
    tmem_cp_32x128b_warpx4<2>(d + 224, da);
    tmem_shift_down<2>(d);
    umma_commit<2>(b);
    umma_commit_multicast<2>(b, (uint16_t)(0x3u << pair_leader_rank()));
  }
  __syncwarp();
  mbar_wait_cluster(b, 0);
  tcgen05_fence_after_thread_sync();
  uint32_t r[16];
  tmem_ld_16x256b<4>(tmem_addr(d, 32 * (warp_idx() % 4), 0), r);
  tmem_wait_ld(r);
  out[blockIdx.x * blockDim.x + threadIdx.x] = fold(r);
  tcgen05_fence_before_thread_sync();
  cluster_sync();
  if (warp_idx() == 0) {
    tcgen05_fence_after_thread_sync();
    tmem_dealloc<2>(d, 256);
  }
}

// ---------------------------------------------------------------- TMA, mbarrier, cluster helpers
__global__ void __cluster_dims__(2, 1, 1)
    k_tma(const __grid_constant__ CUtensorMap m1, const __grid_constant__ CUtensorMap m2,
          const __grid_constant__ CUtensorMap m3, const __grid_constant__ CUtensorMap m4,
          const __grid_constant__ CUtensorMap m5, uint32_t* out, const uint32_t* gsrc, int c) {
  __shared__ __align__(1024) uint8_t buf[16384];
  __shared__ __align__(8) uint64_t bars[2];
  const uint32_t s = smem_u32(buf);
  const uint32_t b0 = smem_u32(&bars[0]);
  const uint32_t b1 = smem_u32(&bars[1]);
  if (threadIdx.x == 0) {
    prefetch_tensormap(&m2);
    mbar_init(b0, 1);
    mbar_init(b1, 2);
    fence_mbarrier_init();
  }
  cluster_arrive_relaxed();
  cluster_wait();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(b0, 16384);
    mbar_expect_tx(b0, 0);
    tma_load_1d(s, &m1, b0, c);
    tma_load_2d(s, &m2, b0, c, c);
    tma_load_3d(s, &m3, b0, c, c, c);
    tma_load_4d(s, &m4, b0, c, c, c, c);
    tma_load_5d(s, &m5, b0, c, c, c, c, c);
    tma_load_1d_multicast(s, &m1, b0, 0x3, c);
    tma_load_2d_multicast(s, &m2, b0, 0x3, c, c);
    tma_load_3d_multicast(s, &m3, b0, 0x3, c, c, c);
    tma_load_4d_multicast(s, &m4, b0, 0x3, c, c, c, c);
    tma_load_5d_multicast(s, &m5, b0, 0x3, c, c, c, c, c);
    const uint32_t leader_bar = mapa_shared(b0, pair_leader_rank());
    tma_load_2d_2sm(s, &m2, leader_bar, c, c);
    tma_load_3d_2sm(s, &m3, leader_bar, c, c, c);
    tma_load_2d_2sm_multicast(s, &m2, leader_bar, 0x3, c, c);
    tma_prefetch_2d(&m2, c, c);
    bulk_load(s + 8192, gsrc, 4096, b0);
  }
  mbar_wait(b0, 0);
  mbar_arrive(b1);
  mbar_arrive_cluster(mapa_shared(b1, cluster_ctarank() ^ 1));
  mbar_wait_cluster(b1, 0);
  buf[threadIdx.x] = (uint8_t)(buf[threadIdx.x] + 1);
  fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_1d(&m1, s, c);
    tma_store_2d(&m2, s, c, c);
    tma_store_3d(&m3, s, c, c, c);
    tma_store_4d(&m4, s, c, c, c, c);
    tma_store_5d(&m5, s, c, c, c, c, c);
    tma_reduce_add_1d(&m1, s, c);
    tma_reduce_add_2d(&m2, s, c, c);
    tma_reduce_add_3d(&m3, s, c, c, c);
    tma_reduce_add_4d(&m4, s, c, c, c, c);
    tma_reduce_add_5d(&m5, s, c, c, c, c, c);
    bulk_store(out + 64, s, 256);
    bulk_commit_group();
    bulk_wait_group_read<0>();
    bulk_wait_group<0>();
  }
  const bool elected = elect_one_sync();
  out[threadIdx.x] = cluster_nctarank() + lane_idx() + (elected ? 1u : 0u) + pack_bf16x2(1.0f, 2.0f) +
                     (mbar_try_wait(b0, 1) ? 1u : 0u) + (mbar_try_wait_cluster(b1, 1) ? 1u : 0u);
  cluster_sync();
  if (threadIdx.x == 0) {
    mbar_inval(b0);
    mbar_inval(b1);
  }
}

// Host side of the pack must compile too (never called here).
CUresult pack_host_side(CUtensorMap* map, const void* p) {
  return make_tensor_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, p, 1024, 1024, 2048, 128, 64,
                            CU_TENSOR_MAP_SWIZZLE_128B);
}

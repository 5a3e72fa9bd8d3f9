// PTXBench GEMM expert reference (Hopper, sm_90a), built only on the knowledge pack (ptx.cuh).
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out, row-major.
//
// Design: persistent CTAs (one per SM) walk 128x256 output tiles in L2-friendly groups of 16 tile
// rows. Three warpgroups: warpgroup 0 is the producer (one thread issues TMA loads into a 3-stage
// ring of 128B-swizzled A (128x64) and B (256x64) tiles, completing on "full" mbarriers; it gives
// registers back with setmaxnreg); warpgroups 1 and 2 are consumers (setmaxnreg up; each issues
// wgmma m64n256k16 for its 64 rows, keeps one k-tile of wgmma in flight and frees the previous
// stage through an "empty" mbarrier). The epilogue converts to bf16 into a 128B-swizzled staging
// area and TMA-stores it, so the consumer starts its next tile while the copy engine writes C.
// Measured on the H200: about 1.00x cuBLAS (geometric mean of the GEMM benchmark shapes).
#include "interface.h"
#include "ptx.cuh"

namespace {

using namespace hopper;

constexpr int BM = 128, BN = 256, BK = 64;
constexpr int kStages = 3;
constexpr int kConsumers = 2;  // warpgroups, 64 rows of the tile each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;  // tile rows per L2 group
constexpr uint32_t kABytes = BM * BK * 2, kBBytes = BN * BK * 2, kStageBytes = kABytes + kBBytes;
constexpr uint32_t kCBytesPerWG = 64 * BN * 2;  // bf16 staging for one consumer's 64 x 256 results
constexpr size_t kSmemBytes = size_t(kStages) * kStageBytes + kConsumers * kCBytesPerWG + 1024;

// Tile t of the persistent schedule -> (tile row, tile col), grouped kGroupM rows at a time so
// the CTAs working at once share A rows and B columns in L2.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = kGroupM * tiles_n;
  const int first_m = (t / per_group) * kGroupM;
  const int rows = min(tiles_m - first_m, kGroupM);
  const int in_group = t % per_group;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}

__global__ void __launch_bounds__(kThreads, 1)
    expert_gemm_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                       const __grid_constant__ CUtensorMap tmC, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[kStages];
  __shared__ __align__(8) uint64_t empty_bar[kStages];
  const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;  // 128B swizzle wants 1024-byte tiles
  const int tiles_m = M / BM, tiles_n = (N + BN - 1) / BN, tiles = tiles_m * tiles_n;
  const int k_tiles = K / BK;
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_u32(&full_bar[s]), 1);
      mbar_init(smem_u32(&empty_bar[s]), kConsumers);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (t == 0) {
      // Producer. g counts k-tiles over every tile of this CTA: stage g % kStages is in its
      // (g / kStages)-th use, and each use flips the barrier phase.
      uint32_t g = 0;
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tm, tn;
        tile_coords(tile, tiles_m, tiles_n, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt, ++g) {
          const uint32_t s = g % kStages, use = g / kStages;
          if (use > 0) mbar_wait(smem_u32(&empty_bar[s]), (use - 1) & 1);
          const uint32_t fb = smem_u32(&full_bar[s]);
          mbar_arrive_expect_tx(fb, kStageBytes);  // out-of-range B rows are zero-filled and still counted
          const uint32_t a = ring + s * kStageBytes;
          tma_load_2d(a, &tmA, fb, kt * BK, tm * BM);
          tma_load_2d(a + kABytes, &tmB, fb, kt * BK, tn * BN);
        }
      }
    }
    return;
  }

  setmaxnreg_inc<232>();
  const int cwg = wg - 1;
  float d[128];
  uint32_t g = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int tm, tn;
    tile_coords(tile, tiles_m, tiles_n, tm, tn);
    uint32_t prev = 0;
    for (int kt = 0; kt < k_tiles; ++kt, ++g) {
      const uint32_t s = g % kStages;
      mbar_wait(smem_u32(&full_bar[s]), (g / kStages) & 1);
      const uint32_t a = ring + s * kStageBytes + cwg * (64 * 128), b = ring + s * kStageBytes + kABytes;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
        wgmma_bf16_ss<256>(d, make_tile_desc(a + kk * 32, Swizzle::B128, true, 64),
                           make_tile_desc(b + kk * 32, Swizzle::B128, true, BN), kt > 0 || kk > 0);
      wgmma_commit();
      // Keep this k-tile's wgmma in flight; the previous k-tile's are done, so free its stage.
      wgmma_wait<1>();
      if (kt > 0 && t == 0) mbar_arrive(smem_u32(&empty_bar[prev]));
      prev = s;
    }
    wgmma_wait<0>();
    if (t == 0) mbar_arrive(smem_u32(&empty_bar[prev]));

    // Epilogue: 4 boxes of 64 rows x 64 cols (128-byte rows, 128B-swizzled as TMA expects).
    const uint32_t stage_c = ring + kStages * kStageBytes + cwg * kCBytesPerWG;
    if (t == 0) bulk_wait_group_read<0>();  // the previous tile's stores have read the staging area
    named_barrier_sync(1 + cwg, 128);
    const int w = t / 32, l = t % 32;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 16 * w + l / 4 + 8 * half;  // wgmma accumulator layout
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const uint32_t off = swizzle_offset(Swizzle::B128, r * 128 + (j % 8) * 16 + 4 * (l % 4));
        const uint32_t v = pack_bf16x2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(stage_c + (j / 8) * (64 * 128) + off), "r"(v) : "memory");
      }
    }
    fence_proxy_async_shared();  // generic-proxy writes -> visible to the TMA store
    named_barrier_sync(1 + cwg, 128);
    if (t == 0) {
      for (int box = 0; box < BN / 64; ++box)  // boxes past N are clipped by the tensor map
        tma_store_2d(&tmC, stage_c + box * (64 * 128), tn * BN + box * 64, tm * BM + cwg * 64);
      bulk_commit_group();
    }
  }
  if (t == 0) bulk_wait_group<0>();
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % 128 || K % BK) return cudaErrorInvalidValue;
  CUtensorMap tmA, tmB, tmC;
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const auto swz = CU_TENSOR_MAP_SWIZZLE_128B;
  if (make_tensor_map_2d(&tmA, bf16, A, M, K, size_t(K) * 2, BM, BK, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmB, bf16, B, N, K, size_t(K) * 2, BN, BK, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmC, bf16, C, M, N, size_t(N) * 2, 64, 64, swz) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  cudaError_t err =
      cudaFuncSetAttribute(expert_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes);
  if (err != cudaSuccess) return err;
  int dev = 0, sms = 0;
  if ((err = cudaGetDevice(&dev)) != cudaSuccess) return err;
  if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
  const int tiles = (M / BM) * ((N + BN - 1) / BN);
  expert_gemm_kernel<<<(tiles < sms ? tiles : sms), kThreads, kSmemBytes, stream>>>(tmA, tmB, tmC, M, N, K);
  return cudaGetLastError();
}

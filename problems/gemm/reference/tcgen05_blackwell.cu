// Blackwell (sm_100a): compiled and statically checked only; never run here (no B200).
//
// PTXBench GEMM reference for B200: TMA + tcgen05.mma (kind::f16) + TMEM accumulator.
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out, all row-major.
// Built only on knowledge/blackwell/ptx.cuh (the harness adds the pack folder to the include path).
//
// Design (correctness first, then the obvious speed choices):
//   * one CTA per BM x BN output tile (BM = 128; BN = 256 when N % 256 == 0, else 128),
//     grid = (N / BN, M / 128); K walked in 64-wide k-tiles (64 bf16 = one 128-byte swizzle row).
//   * 128 threads = 4 warps. Warp 0 allocates BN TMEM columns (fp32 accumulator, 128 lanes = 128 rows).
//     Thread 0 (warp 0) is the TMA producer; thread 32 (warp 1) issues every tcgen05.mma and commit.
//     After the main loop all 4 warps run the epilogue (warp w owns TMEM lanes / tile rows 32w..32w+31).
//   * STAGES-deep smem ring; a stage holds the A k-tile (128 x 64 bf16 = 16 KiB) and the B k-tile
//     (BN x 64 bf16), both written by TMA with 128-byte swizzle, both K-major.
//   * mbarriers: full[s] (producer arrive.expect_tx + TMA complete_tx), empty[s] (tcgen05.commit after
//     the 4 MMAs that read stage s: arrives when those MMAs have finished reading it), done (commit
//     after the last MMA: the accumulator is final).
//   * MMA: tcgen05.mma.cta_group::1.kind::f16, M = 128, N = BN, K = 16, 4 per k-tile, A and B from
//     smem descriptors (K-major, SWIZZLE_128B, SBO = 1024 B), D in TMEM; the first MMA overwrites D.
//   * epilogue: tcgen05.ld.32x32b.x64 (thread = row, register j = column j), fp32 -> bf16, written to
//     smem in the TMA 128B-swizzled layout (the ring is free by then), then one TMA store per warp and
//     64-column block (box 64 x 32).
// Requirements: M, N multiples of 128, K multiple of 64 (checked on the host).

#include "interface.h"
#include "ptx.cuh"

#include <cuda.h>
#include <stdint.h>

namespace {

using namespace blackwell;

constexpr int BM = 128;     // tile rows = MMA M = TMEM lanes
constexpr int BK = 64;      // k-tile: 64 bf16 = 128 bytes = one 128B-swizzle row
constexpr int UMMA_K = 16;  // K of one tcgen05.mma kind::f16
constexpr int kThreads = 128;
constexpr int kEpiRows = 32;                   // rows per warp in the epilogue (one TMEM lane quarter)
constexpr int kEpiCols = 64;                   // columns per TMA store box (64 bf16 = 128 B)
constexpr uint32_t kTileABytes = BM * BK * 2;  // 16384

template <int BN>
struct Config {
  static_assert(BN == 128 || BN == 256, "BN is 128 or 256");
  static_assert(valid_f16_shape(1, BM, BN), "tcgen05.mma kind::f16 cta_group::1 shape");
  static constexpr int kStages = (BN == 256) ? 4 : 6;  // 192 KiB of ring either way
  static constexpr uint32_t kTileBBytes = BN * BK * 2;
  static constexpr uint32_t kStageBytes = kTileABytes + kTileBBytes;  // multiple of 1024
  static constexpr uint32_t kTmemCols = BN;                           // fp32 accumulator: 1 column each
  // +1024 so the ring can be rounded up to 1024 B (a 128B-swizzle atom is 8 rows x 128 B).
  static constexpr size_t kSmemBytes = (size_t)kStages * kStageBytes + 1024;
  // Epilogue staging (reuses the ring): 4 warps x BN/64 boxes x (32 rows x 128 B).
  static constexpr uint32_t kEpiBytes = 4u * (BN / kEpiCols) * (kEpiRows * 128);
  static_assert(kStageBytes % 1024 == 0, "stages stay 1024-aligned");
  static_assert(kEpiBytes <= (uint32_t)kStages * kStageBytes, "epilogue staging fits in the ring");
  static_assert(kSmemBytes <= 227 * 1024, "fits the 227 KiB per-block limit");
};

template <int BN>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_tcgen05_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                        const __grid_constant__ CUtensorMap tmC, int K) {
  using Cfg = Config<BN>;
  constexpr int S = Cfg::kStages;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[S];
  __shared__ __align__(8) uint64_t empty_bar[S];
  __shared__ __align__(8) uint64_t done_bar;
  __shared__ uint32_t tmem_slot;

  const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int num_k_tiles = K / BK;

  // ---------------------------------------------------------------- setup
  if (warp == 0) {
    // Whole warp: allocate the accumulator columns; the base address lands in tmem_slot.
    tmem_alloc<1>(smem_u32(&tmem_slot), Cfg::kTmemCols);
    tmem_relinquish_alloc_permit<1>();
  } else if (warp == 1 && lane == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(smem_u32(&full_bar[s]), 1);   // one producer arrive (+ transaction bytes)
      mbar_init(smem_u32(&empty_bar[s]), 1);  // one tcgen05.commit arrive
    }
    mbar_init(smem_u32(&done_bar), 1);  // one tcgen05.commit arrive
    fence_mbarrier_init();
    fence_proxy_async_shared();  // the inits are also seen by the async proxy (TMA, tcgen05.commit)
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    prefetch_tensormap(&tmC);
  }
  // The TMEM address was written by tcgen05.alloc: fence / sync / fence before anyone reads it.
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const uint32_t tmem_d = tmem_slot;  // lane 0, first allocated column

  // Phase bookkeeping: k-tile kt uses stage s = kt % S in round r = kt / S; each barrier completes
  // one phase per round, so round r waits for parity r & 1 (empty[s]: parity of round r - 1).
  if (threadIdx.x == 0) {
    // ------------------------------------------------------------ TMA producer
    for (int kt = 0; kt < num_k_tiles; ++kt) {
      const int s = kt % S;
      const int r = kt / S;
      if (r > 0) mbar_wait(smem_u32(&empty_bar[s]), (uint32_t)((r - 1) & 1));
      const uint32_t fb = smem_u32(&full_bar[s]);
      const uint32_t a_dst = ring + (uint32_t)s * Cfg::kStageBytes;
      mbar_arrive_expect_tx(fb, Cfg::kStageBytes);
      tma_load_2d(a_dst, &tmA, fb, kt * BK, m0);                // A box: 64 (k) x 128 rows
      tma_load_2d(a_dst + kTileABytes, &tmB, fb, kt * BK, n0);  // B box: 64 (k) x BN rows
    }
  } else if (threadIdx.x == 32) {
    // ------------------------------------------------------------ MMA issuer (one thread)
    constexpr uint32_t idesc = make_idesc_bf16_f32(BM, BN);  // bf16 x bf16 -> fp32, A and B K-major
    for (int kt = 0; kt < num_k_tiles; ++kt) {
      const int s = kt % S;
      const int r = kt / S;
      mbar_wait(smem_u32(&full_bar[s]), (uint32_t)(r & 1));
      tcgen05_fence_after_thread_sync();
      const uint32_t a_base = ring + (uint32_t)s * Cfg::kStageBytes;
      const uint32_t b_base = a_base + kTileABytes;
#pragma unroll
      for (int kk = 0; kk < BK / UMMA_K; ++kk) {
        // K step kk = 16 bf16 = 32 bytes further along each 128-byte swizzled row; the hardware
        // applies the XOR pattern to the final address, so the start address simply moves by 32 B.
        const uint64_t da = make_smem_desc_kmajor_sw128(a_base + kk * UMMA_K * 2);
        const uint64_t db = make_smem_desc_kmajor_sw128(b_base + kk * UMMA_K * 2);
        umma_ss<1>(tmem_d, da, db, idesc, (kt | kk) != 0);
      }
      umma_commit<1>(smem_u32(&empty_bar[s]));  // stage s is free once these MMAs completed
    }
    umma_commit<1>(smem_u32(&done_bar));  // accumulator complete
  }
  __syncwarp();  // reconverge warps 0 and 1 before the warp-collective tcgen05.ld

  // ---------------------------------------------------------------- epilogue (all 4 warps)
  mbar_wait(smem_u32(&done_bar), 0);
  __syncwarp();  // lanes may leave the polling loop in different iterations; tcgen05.ld is .sync.aligned
  tcgen05_fence_after_thread_sync();

  // All MMAs (and therefore all TMA loads they consumed) are complete: the ring is free for staging.
  const uint32_t row_base = warp * kEpiRows;  // TMEM lanes this warp may access
#pragma unroll 1
  for (int cb = 0; cb < BN / kEpiCols; ++cb) {
    uint32_t v[kEpiCols];
    tmem_ld_32x32b<kEpiCols>(tmem_addr(tmem_d, row_base, cb * kEpiCols), v);  // row = lane, col j = v[j]
    tmem_wait_ld(v);
    // Box (warp, cb): 32 rows x 128 B, 128B-swizzled: 16-byte chunk q of row l sits at chunk q ^ (l % 8).
    const uint32_t box = ring + (warp * (BN / kEpiCols) + cb) * (kEpiRows * 128);
    const uint32_t row_addr = box + lane * 128;
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const uint32_t w0 = pack_bf16x2(__uint_as_float(v[8 * q + 0]), __uint_as_float(v[8 * q + 1]));
      const uint32_t w1 = pack_bf16x2(__uint_as_float(v[8 * q + 2]), __uint_as_float(v[8 * q + 3]));
      const uint32_t w2 = pack_bf16x2(__uint_as_float(v[8 * q + 4]), __uint_as_float(v[8 * q + 5]));
      const uint32_t w3 = pack_bf16x2(__uint_as_float(v[8 * q + 6]), __uint_as_float(v[8 * q + 7]));
      const uint32_t dst = row_addr + (((uint32_t)q ^ (lane & 7u)) * 16u);
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(w0), "r"(w1), "r"(w2), "r"(w3)
                   : "memory");
    }
    fence_proxy_async_shared();  // make this thread's smem writes visible to the TMA (async proxy)
    __syncwarp();
    if (lane == 0) {
      tma_store_2d(&tmC, box, n0 + cb * kEpiCols, m0 + (int)row_base);
      bulk_commit_group();
    }
  }
  if (lane == 0) bulk_wait_group<0>();  // smem read and global writes done before the CTA exits

  // ---------------------------------------------------------------- teardown
  tcgen05_fence_before_thread_sync();  // every tcgen05.ld of every warp is ordered before the sync
  __syncthreads();
  if (warp == 0) {
    tcgen05_fence_after_thread_sync();
    tmem_dealloc<1>(tmem_d, Cfg::kTmemCols);
  }
}

template <int BN>
cudaError_t launch(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                   cudaStream_t stream) {
  using Cfg = Config<BN>;
  CUtensorMap tmA, tmB, tmC;
  constexpr CUtensorMapDataType kBF16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  // A [M, K] and B [N, K]: boxes of 64 (k) x rows, 128B swizzle (box row = 128 bytes).
  if (make_tensor_map_2d(&tmA, kBF16, A, M, K, (uint64_t)K * 2, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  if (make_tensor_map_2d(&tmB, kBF16, B, N, K, (uint64_t)K * 2, BN, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  // C [M, N]: store boxes of 64 columns x 32 rows, the same 128B swizzle the epilogue writes.
  if (make_tensor_map_2d(&tmC, kBF16, C, M, N, (uint64_t)N * 2, kEpiRows, kEpiCols, CU_TENSOR_MAP_SWIZZLE_128B) !=
      CUDA_SUCCESS)
    return cudaErrorInvalidValue;

  cudaError_t err =
      cudaFuncSetAttribute(gemm_tcgen05_kernel<BN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)Cfg::kSmemBytes);
  if (err != cudaSuccess) return err;
  dim3 grid(N / BN, M / BM);
  gemm_tcgen05_kernel<BN><<<grid, kThreads, Cfg::kSmemBytes, stream>>>(tmA, tmB, tmC, K);
  return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % 128 || N % 128 || K % BK) return cudaErrorInvalidValue;
  if (M / BM > 65535) return cudaErrorInvalidValue;
  if (N % 256 == 0) return launch<256>(A, B, C, M, N, K, stream);
  return launch<128>(A, B, C, M, N, K, stream);
}

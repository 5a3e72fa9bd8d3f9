// CONTROL (issue 45, honest; must keep target_executed true): problems/gemm/reference/wgmma_tma.cu
// with one change: when K >= 1024, each tile's LAST 64-wide k-tile is multiplied by legacy warp MMAs
// (mma.sync m16n8k16 bf16, SASS HMMA) from the same TMA-loaded shared-memory stage, accumulating
// into the wgmma accumulators (the mma.sync C layout of a warp's 16 rows is the wgmma m64nNk16
// accumulator layout). That is 64/K of the FLOPs off the target family (1.6% at K = 4096, 0.4% at
// K = 14336, 6.25% at K = 1024); below K = 1024 (the hidden K = 64 among them) every k-tile stays on
// wgmma. The warpgroup MMAs do at least 93.75% of the FLOPs, the TMA brings every operand byte.
// Must be judged correct with target_executed true.
#include "interface.h"

// PTXBench GEMM reference: Hopper wgmma + TMA, multi-stage mbarrier pipeline, on the knowledge pack (ptx.cuh).
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate, bf16 out, all row-major.
//
// Design (correctness first, speed comes later):
//   * one CTA per 128x128 output tile, grid = (N/128, M/128); K walked in 64-wide k-tiles.
//   * 384 threads = 3 warpgroups. Warpgroup 0 is the producer: a single thread (tid 0)
//     issues the TMA loads; the other 127 threads of that warpgroup exit at once.
//     Warpgroups 1 and 2 are consumers: consumer c computes rows [64c, 64c+64) of the
//     tile with wgmma.mma_async m64n128k16 (fp32 accumulators, 64 registers/thread).
//   * 4-stage shared-memory ring; a stage holds the A k-tile (128 rows x 64 bf16 = 16 KiB)
//     and the B k-tile (128 rows x 64 bf16 = 16 KiB), both 128-byte swizzled by TMA.
//   * per stage two mbarriers: full[s] (producer arrive.expect_tx + TMA complete_tx) and
//     empty[s] (arrived by all 256 consumer threads after their wgmmas reading s finished).
//   * epilogue: fp32 fragments -> bf16 pairs, plain 4-byte global stores.
// Requirements: M, N multiples of 128, K multiple of 64 (checked on the host).

#include "ptx.cuh"

namespace {

constexpr int BM = 128;  // CTA tile rows (M)
constexpr int BN = 128;  // CTA tile cols (N)
constexpr int BK = 64;   // k-tile: 64 bf16 = 128 bytes = one 128B swizzle row
constexpr int kStages = 4;
constexpr int kConsumerWGs = 2;  // each consumer warpgroup owns 64 rows of the tile
constexpr int kThreads = 128 * (1 + kConsumerWGs);
constexpr uint32_t kTileABytes = BM * BK * 2;                // 16384
constexpr uint32_t kTileBBytes = BN * BK * 2;                // 16384
constexpr uint32_t kStageBytes = kTileABytes + kTileBBytes;  // 32768 (multiple of 1024)
// +1024 so the ring can be rounded up to a 1024-byte boundary (128B-swizzle atom = 8 rows
// x 128 B = 1024 B; TMA's swizzle and wgmma's de-swizzle are both computed from address
// bits, so every tile must start on a 1024-byte boundary).
constexpr size_t kSmemBytes = (size_t)kStages * kStageBytes + 1024;

static_assert(kTileABytes % 1024 == 0 && kTileBBytes % 1024 == 0, "tiles must stay 1024-aligned");
static_assert(BK * 2 == 128, "BK must span exactly one 128-byte swizzle row");

using namespace hopper;  // the knowledge pack's PTX wrappers (ptx.cuh)

// wgmma descriptor of a 128B-swizzled, K-major tile (rows 128 B apart, 8-row groups 1024 B apart).
__device__ __forceinline__ uint64_t make_smem_desc(uint32_t addr) {
  return make_tile_desc(addr, Swizzle::B128, true, 64);
}

// The 64-wide k-tile at `a` (this warpgroup's 64 rows) x `b` (128 rows) by mma.sync m16n8k16 bf16,
// added into the m64n128 accumulators d (d[4j + e] = row 16*warp + lane/4 + 8*(e>>1), column
// 8j + 2*(lane%4) + (e&1): the mma.sync C fragment of n8 block j).
__device__ __forceinline__ uint32_t ld_swz(const uint8_t* tile, int r, int k) {
  return *reinterpret_cast<const uint32_t*>(tile + r * 128 + ((((k >> 3) ^ r) & 7) << 4) + (k & 7) * 2);
}
__device__ __forceinline__ void mma_sync_k_tile(float (&d)[64], const uint8_t* a, const uint8_t* b, int t) {
  const int lane = t % 32, g = lane >> 2, tq = lane & 3, r = 16 * (t / 32) + g;
#pragma unroll
  for (int kk = 0; kk < BK / 16; ++kk) {
    const int k = 16 * kk + 2 * tq;
    const uint32_t a0 = ld_swz(a, r, k), a1 = ld_swz(a, r + 8, k), a2 = ld_swz(a, r, k + 8), a3 = ld_swz(a, r + 8, k + 8);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const uint32_t b0 = ld_swz(b, 8 * j + g, k), b1 = ld_swz(b, 8 * j + g, k + 8);
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
          : "+f"(d[4 * j]), "+f"(d[4 * j + 1]), "+f"(d[4 * j + 2]), "+f"(d[4 * j + 3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
}

// ---------------------------------------------------------------- kernel

__global__ void __launch_bounds__(kThreads, 1)
    gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                          __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[kStages];
  __shared__ __align__(8) uint64_t empty_bar[kStages];

  // Ring base rounded up to 1024 B (kSmemBytes reserves the slack).
  const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
  // Stage s: A tile at ring + s*kStageBytes, B tile right after it.
  auto tileA = [&](int s) { return ring + (uint32_t)s * kStageBytes; };
  auto tileB = [&](int s) { return ring + (uint32_t)s * kStageBytes + kTileABytes; };

  const int num_k_tiles = K / BK;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_u32(&full_bar[s]), 1);                    // one producer arrive (+tx)
      mbar_init(smem_u32(&empty_bar[s]), kConsumerWGs * 128);  // every consumer thread
    }
    // Make the initialised barriers visible to the other threads and to the async proxy
    // (TMA complete_tx) before anyone uses them.
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  __syncthreads();

  // Phase bookkeeping. k-tile kt uses stage s = kt % kStages in "round" r = kt / kStages.
  // Each barrier completes exactly one phase per round, so phase r has parity r & 1.
  //   full[s]  : phase r completes when round r's A+B bytes have landed.
  //              The consumer waits for parity (r & 1). It cannot be two phases behind or
  //              ahead: round r+1 of stage s needs empty[s] phase r, i.e. this consumer.
  //   empty[s] : phase r completes when all 256 consumer threads are done reading round r.
  //              Round 0 needs no wait (stage never used); round r >= 1 waits for phase
  //              r-1, parity ((r - 1) & 1).
  if (wg == 0) {
    // ------------------------------------------------------------ producer
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < num_k_tiles; ++kt) {
        const int s = kt % kStages;
        const int r = kt / kStages;
        if (r > 0) mbar_wait(smem_u32(&empty_bar[s]), (uint32_t)((r - 1) & 1));
        const uint32_t fb = smem_u32(&full_bar[s]);
        mbar_arrive_expect_tx(fb, kStageBytes);
        // A box: 64 (k) x 128 (rows of A) at (k = kt*64, row = m0).
        tma_load_2d(tileA(s), &tmA, fb, kt * BK, m0);
        // B box: 64 (k) x 128 (rows of B = columns of C) at (k = kt*64, row = n0).
        tma_load_2d(tileB(s), &tmB, fb, kt * BK, n0);
      }
    }
    return;
  }

  // -------------------------------------------------------------- consumers
  const int cwg = wg - 1;           // 0 or 1: which 64-row half of the tile
  const int t = threadIdx.x % 128;  // thread index inside the warpgroup

  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int s = kt % kStages;
    const int r = kt / kStages;
    mbar_wait(smem_u32(&full_bar[s]), (uint32_t)(r & 1));

    // This warpgroup's A rows start 64 rows (64 * 128 B = 8192 B, still 1024-aligned)
    // into the A tile; it uses all 128 rows of the B tile.
    const uint32_t a_base = tileA(s) + (uint32_t)cwg * (64 * 128);
    const uint32_t b_base = tileB(s);

    if (kt == num_k_tiles - 1 && K >= 1024) {
      // The remainder on mma.sync: A rows 16*warp + lane/4 (+8) of this warpgroup's 64, all 128 B
      // rows; element (r, k) of a 128B-swizzled tile sits at r*128 + (((k/8) ^ r) % 8)*16 + (k%8)*2.
      mma_sync_k_tile(d, smem_raw + (a_base - smem_u32(smem_raw)), smem_raw + (b_base - smem_u32(smem_raw)), t);
    } else {
    wgmma_fence();  // accumulator registers were written by ordinary instructions
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // k16 step kk = 16 bf16 = 32 bytes further along each 128-byte (swizzled) row;
      // the hardware applies the 128B XOR pattern on the final address bits.
      wgmma_bf16_ss<128>(d, make_smem_desc(a_base + kk * 32), make_smem_desc(b_base + kk * 32));
    }
    wgmma_commit();
    wgmma_wait<0>();                       // this thread's wgmmas (the reads of stage s) are complete
    wgmma_fence_operand(d);
    }
    mbar_arrive(smem_u32(&empty_bar[s]));  // hand stage s back to the producer
  }

  // Epilogue. wgmma m64nNk16 fp32 D fragment: thread t (warp w = t/32, lane l = t%32)
  // holds, for each 8-column group j (0..15 for N = 128):
  //   d[4j+0], d[4j+1] -> row 16w + l/4,     cols 8j + 2(l%4), +1
  //   d[4j+2], d[4j+3] -> row 16w + l/4 + 8, cols 8j + 2(l%4), +1
  const int w = t / 32;
  const int l = t % 32;
  const int row = m0 + cwg * 64 + 16 * w + l / 4;
  const int colb = n0 + 2 * (l % 4);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = colb + 8 * j;
    __nv_bfloat162 lo = __floats2bfloat162_rn(d[4 * j + 0], d[4 * j + 1]);
    __nv_bfloat162 hi = __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
    *reinterpret_cast<__nv_bfloat162*>(C + (size_t)row * N + col) = lo;
    *reinterpret_cast<__nv_bfloat162*>(C + (size_t)(row + 8) * N + col) = hi;
  }
  (void)M;
}

// Host: a 2D tensor map over a row-major [rows, K] bf16 matrix, box = 64 (k) x 128 (rows),
// 128-byte swizzle (the box's inner extent is exactly 128 bytes, the maximum for 128B).
CUresult make_gemm_tensor_map(CUtensorMap* map, const __nv_bfloat16* ptr, int rows, int K) {
  return make_tensor_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, ptr, rows, K, size_t(K) * 2, BM, BK,
                            CU_TENSOR_MAP_SWIZZLE_128B);
}

static_assert(BM == BN, "one box shape serves both A and B");

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK) return cudaErrorInvalidValue;

  CUtensorMap tmA, tmB;
  if (make_gemm_tensor_map(&tmA, A, M, K) != CUDA_SUCCESS) return cudaErrorInvalidValue;
  if (make_gemm_tensor_map(&tmB, B, N, K) != CUDA_SUCCESS) return cudaErrorInvalidValue;

  cudaError_t err =
      cudaFuncSetAttribute(gemm_wgmma_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes);
  if (err != cudaSuccess) return err;

  dim3 grid(N / BN, M / BM);
  gemm_wgmma_tma_kernel<<<grid, kThreads, kSmemBytes, stream>>>(tmA, tmB, C, M, N, K);
  return cudaGetLastError();
}

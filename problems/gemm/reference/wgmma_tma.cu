#include "interface.h"

// PTXBench GEMM reference: Hopper wgmma + TMA, multi-stage mbarrier pipeline.
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

#include <cuda.h>
#include <stdint.h>

namespace {

constexpr int BM = 128;              // CTA tile rows (M)
constexpr int BN = 128;              // CTA tile cols (N)
constexpr int BK = 64;               // k-tile: 64 bf16 = 128 bytes = one 128B swizzle row
constexpr int kStages = 4;
constexpr int kConsumerWGs = 2;      // each consumer warpgroup owns 64 rows of the tile
constexpr int kThreads = 128 * (1 + kConsumerWGs);
constexpr uint32_t kTileABytes = BM * BK * 2;                 // 16384
constexpr uint32_t kTileBBytes = BN * BK * 2;                 // 16384
constexpr uint32_t kStageBytes = kTileABytes + kTileBBytes;   // 32768 (multiple of 1024)
// +1024 so the ring can be rounded up to a 1024-byte boundary (128B-swizzle atom = 8 rows
// x 128 B = 1024 B; TMA's swizzle and wgmma's de-swizzle are both computed from address
// bits, so every tile must start on a 1024-byte boundary).
constexpr size_t kSmemBytes = (size_t)kStages * kStageBytes + 1024;

static_assert(kTileABytes % 1024 == 0 && kTileBBytes % 1024 == 0, "tiles must stay 1024-aligned");
static_assert(BK * 2 == 128, "BK must span exactly one 128-byte swizzle row");

// ---------------------------------------------------------------- PTX wrappers

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Producer: arrive once (count 1) and raise the expected transaction count by `bytes`.
// The phase completes when the arrival count is met AND `bytes` bytes have landed.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "{\n\t.reg .b64 st;\n\t"
      "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}"
      ::"r"(bar), "r"(bytes) : "memory");
}

// Plain arrive (release semantics, CTA scope by default).
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile(
      "{\n\t.reg .b64 st;\n\t"
      "mbarrier.arrive.shared::cta.b64 st, [%0];\n\t}"
      ::"r"(bar) : "memory");
}

// Block until the phase with parity `parity` has completed (acquire, CTA scope).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}

// 2D TMA load of one box into shared memory; completion is signalled as transaction
// bytes on mbarrier `bar`. Coordinates are innermost first: c0 = k (elements), c1 = row.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1,
                                            uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// wgmma shared-memory matrix descriptor (sm_90 format, PTX ISA "Matrix Descriptor Format"):
//   bits  0-13 : start address >> 4   (shared-window address, 18 bits -> 14 bits)
//   bits 16-29 : leading-dimension byte offset >> 4. For K-major operands with a swizzled
//                layout the K extent of one wgmma (16 bf16 = 32 B) sits inside a single
//                128-byte swizzle row, so LBO is not used; encode 1 by convention.
//   bits 32-45 : stride-dimension byte offset >> 4 = distance between consecutive 8-row
//                groups (core-matrix rows in M/N) = 8 rows * 128 B = 1024 B -> 64.
//   bits 49-51 : base offset = 0 (every tile starts 1024-aligned; the +32/64/96 B k-step
//                offsets below do not change address bits 7-9, so it stays 0).
//   bits 62-63 : swizzle mode, 1 = 128-byte swizzle (matches CU_TENSOR_MAP_SWIZZLE_128B).
__device__ __forceinline__ uint64_t make_smem_desc(uint32_t addr) {
  uint64_t desc = 0;
  desc |= (uint64_t)((addr & 0x3FFFFu) >> 4);
  desc |= (uint64_t)1 << 16;
  desc |= (uint64_t)(1024u >> 4) << 32;
  desc |= (uint64_t)1 << 62;
  return desc;
}

// D[64x128] += A[64x16] * B[128x16]^T ; A and B both K-major in shared memory
// (imm-trans-a = imm-trans-b = 0), scale-d = 1 (accumulate), scale-a = scale-b = 1.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(1)
      : "memory");
}

// ---------------------------------------------------------------- kernel

__global__ void __launch_bounds__(kThreads, 1)
gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap tmA,
                      const __grid_constant__ CUtensorMap tmB,
                      __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[kStages];
  __shared__ __align__(8) uint64_t empty_bar[kStages];

  // Ring base rounded up to 1024 B (kSmemBytes reserves the slack).
  const uint32_t ring = (smem_addr(smem_raw) + 1023u) & ~1023u;
  // Stage s: A tile at ring + s*kStageBytes, B tile right after it.
  auto tileA = [&](int s) { return ring + (uint32_t)s * kStageBytes; };
  auto tileB = [&](int s) { return ring + (uint32_t)s * kStageBytes + kTileABytes; };

  const int num_k_tiles = K / BK;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_addr(&full_bar[s]), 1);                     // one producer arrive (+tx)
      mbar_init(smem_addr(&empty_bar[s]), kConsumerWGs * 128);   // every consumer thread
    }
    // Make the initialised barriers visible to the other threads and to the async proxy
    // (TMA complete_tx) before anyone uses them.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
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
        if (r > 0) mbar_wait(smem_addr(&empty_bar[s]), (uint32_t)((r - 1) & 1));
        const uint32_t fb = smem_addr(&full_bar[s]);
        mbar_arrive_expect_tx(fb, kStageBytes);
        // A box: 64 (k) x 128 (rows of A) at (k = kt*64, row = m0).
        tma_load_2d(tileA(s), &tmA, kt * BK, m0, fb);
        // B box: 64 (k) x 128 (rows of B = columns of C) at (k = kt*64, row = n0).
        tma_load_2d(tileB(s), &tmB, kt * BK, n0, fb);
      }
    }
    return;
  }

  // -------------------------------------------------------------- consumers
  const int cwg = wg - 1;                 // 0 or 1: which 64-row half of the tile
  const int t = threadIdx.x % 128;        // thread index inside the warpgroup

  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int s = kt % kStages;
    const int r = kt / kStages;
    mbar_wait(smem_addr(&full_bar[s]), (uint32_t)(r & 1));

    // This warpgroup's A rows start 64 rows (64 * 128 B = 8192 B, still 1024-aligned)
    // into the A tile; it uses all 128 rows of the B tile.
    const uint32_t a_base = tileA(s) + (uint32_t)cwg * (64 * 128);
    const uint32_t b_base = tileB(s);

    wgmma_fence();  // accumulator registers were written by ordinary instructions
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // k16 step kk = 16 bf16 = 32 bytes further along each 128-byte (swizzled) row;
      // the hardware applies the 128B XOR pattern on the final address bits.
      wgmma_m64n128k16(d, make_smem_desc(a_base + kk * 32), make_smem_desc(b_base + kk * 32));
    }
    wgmma_commit();
    wgmma_wait<0>();  // this thread's wgmmas (the reads of stage s) are complete
    mbar_arrive(smem_addr(&empty_bar[s]));  // hand stage s back to the producer
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
CUresult make_tensor_map(CUtensorMap* map, const __nv_bfloat16* ptr, int rows, int K) {
  const cuuint64_t dims[2] = {(cuuint64_t)K, (cuuint64_t)rows};        // innermost first
  const cuuint64_t strides[1] = {(cuuint64_t)K * sizeof(__nv_bfloat16)};  // bytes, dims 1..
  const cuuint32_t box[2] = {(cuuint32_t)BK, (cuuint32_t)BM};
  const cuuint32_t elem_strides[2] = {1, 1};
  return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
                                const_cast<__nv_bfloat16*>(ptr), dims, strides, box,
                                elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

static_assert(BM == BN, "one box shape serves both A and B");

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                     __nv_bfloat16* C, int M, int N, int K,
                                     cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK) return cudaErrorInvalidValue;

  CUtensorMap tmA, tmB;
  if (make_tensor_map(&tmA, A, M, K) != CUDA_SUCCESS) return cudaErrorInvalidValue;
  if (make_tensor_map(&tmB, B, N, K) != CUDA_SUCCESS) return cudaErrorInvalidValue;

  cudaError_t err = cudaFuncSetAttribute(gemm_wgmma_tma_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)kSmemBytes);
  if (err != cudaSuccess) return err;

  dim3 grid(N / BN, M / BM);
  gemm_wgmma_tma_kernel<<<grid, kThreads, kSmemBytes, stream>>>(tmA, tmB, C, M, N, K);
  return cudaGetLastError();
}

// Shared by the attacks of issue 45 on the TMA's share (class 2): an honest warpgroup-MMA GEMM
// (128 x 128 CTA tile, two warpgroups of 64 rows, m64n128k16 from 128B-swizzled K-major tiles, as
// problems/gemm/reference/wgmma_tma.cu) whose operand tiles do NOT come by TMA: every thread copies
// 16-byte chunks with cp.async (SASS LDGSTS), or loads them (LDG) and stores them (STS), into the
// swizzled layout wgmma reads (chunk c of row r at chunk c ^ (r % 8)). Beside that, per Opts:
//   side_copies    TMA loads of A's and B's k-tiles into a scratch box, thrown away. kSideOperands:
//                  each CTA (bx, by) copies A's k-tiles bx, bx + N/128, ... of its row block and B's
//                  k-tiles by, by + M/128, ... of its column block, so the grid moves every operand
//                  byte once (a TMA share of the OPERAND bytes of 1.0, while the plain loads bring
//                  every operand byte N/128 (A) or M/128 (B) times). kSideToken: one A box per CTA.
//   tiny_copies    TMA loads through a map of a 16 x 16 corner of A with a 256 x 256 box (128 KiB of
//                  shared memory filled, 512 bytes read), this many per CTA, thrown away.
//   store_repeats  the C tile written by TMA stores (box 64 rows x 128), this many times over (same
//                  bytes, same place), instead of plain stores.
// One kernel, one name; the wgmma results are the output in every mode (the tensor share is real).
#pragma once
#include <cuda.h>

#include "ptx.cuh"

namespace plainops {

using namespace hopper;

enum Load : int { kCpAsync = 0, kPlainLoads = 1 };
enum Side : int { kSideNone = 0, kSideOperands = 1, kSideToken = 2 };

constexpr int BM = 128, BN = 128, BK = 64, kThreads = 256;
constexpr uint32_t kTileBytes = 128 * 64 * 2;         // 16 KiB: 128 rows x 64 k
constexpr uint32_t kStageBytes = 2 * kTileBytes;      // A tile, B tile
constexpr uint32_t kOffSide = 2 * kStageBytes;        // 64 KiB: two stages, then the side box
constexpr uint32_t kOffTiny = kOffSide + kTileBytes;  // 80 KiB: then the tiny map's 256 x 256 box
constexpr uint32_t kTinyBoxBytes = 256 * 256 * 2;     // 128 KiB
constexpr int kTinyRows = 16, kTinyCols = 16;         // the tiny tensor: A[0:16, 0:16]

struct Opts {
  int load;
  int side_copies;    // Side
  int tiny_copies;    // per CTA
  int store_repeats;  // 0: plain stores
};

// Copies the k-tile kt of A's rows [m0, m0+128) and B's rows [n0, n0+128) into `stage` (A then B),
// 128B-swizzled: 2 x 1024 16-byte chunks, 8 per thread.
__device__ __forceinline__ void load_tiles(uint8_t* stage, uint32_t stage_u32, const __nv_bfloat16* A,
                                           const __nv_bfloat16* B, int K, int m0, int n0, int kt, int load) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int idx = threadIdx.x + i * kThreads;  // 0 .. 2047
    const int which = idx >> 10, r = (idx >> 3) & 127, c = idx & 7;
    const __nv_bfloat16* src = (which ? B + size_t(n0 + r) * K : A + size_t(m0 + r) * K) + kt * BK + c * 8;
    const uint32_t off = which * kTileBytes + r * 128 + (((c ^ r) & 7) << 4);
    if (load == kCpAsync) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(stage_u32 + off), "l"(src) : "memory");
    } else {
      *reinterpret_cast<uint4*>(stage + off) = *reinterpret_cast<const uint4*>(src);
    }
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_plain_operands(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                        __nv_bfloat16* __restrict__ C, int M, int N, int K, const __grid_constant__ CUtensorMap tmA,
                        const __grid_constant__ CUtensorMap tmB, const __grid_constant__ CUtensorMap tmTiny,
                        const __grid_constant__ CUtensorMap tmC, Opts o) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  uint8_t* const base_ptr = smem_raw + (base - smem_u32(smem_raw));
  const int nk = K / BK, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wg = warpgroup_idx(), t = threadIdx.x % 128;

  // Side TMA traffic first, from thread 0; every thread waits for it at the barrier below.
  if (threadIdx.x == 0 && (o.side_copies || o.tiny_copies)) {
    const uint32_t b = smem_u32(&bar);
    mbar_init(b, 1);
    fence_mbarrier_init();
    fence_proxy_async_shared();
    uint32_t phase = 0;
    if (o.side_copies == kSideToken) {
      mbar_arrive_expect_tx(b, kTileBytes);
      tma_load_2d(base + kOffSide, &tmA, b, 0, m0);
      mbar_wait(b, phase);
      phase ^= 1;
    } else if (o.side_copies == kSideOperands) {
      for (int kt = blockIdx.x; kt < nk; kt += gridDim.x) {
        mbar_arrive_expect_tx(b, kTileBytes);
        tma_load_2d(base + kOffSide, &tmA, b, kt * BK, m0);
        mbar_wait(b, phase);
        phase ^= 1;
      }
      for (int kt = blockIdx.y; kt < nk; kt += gridDim.y) {
        mbar_arrive_expect_tx(b, kTileBytes);
        tma_load_2d(base + kOffSide, &tmB, b, kt * BK, n0);
        mbar_wait(b, phase);
        phase ^= 1;
      }
    }
    for (int i = 0; i < o.tiny_copies; ++i) {
      mbar_arrive_expect_tx(b, kTinyBoxBytes);  // the whole box lands (out-of-bounds part zero-filled)
      tma_load_2d(base + kOffTiny, &tmTiny, b, 0, 0);
      mbar_wait(b, phase);
      phase ^= 1;
    }
  }

  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;

  load_tiles(base_ptr, base, A, B, K, m0, n0, 0, o.load);
  asm volatile("cp.async.commit_group;" ::: "memory");
  for (int kt = 0; kt < nk; ++kt) {
    const int s = kt & 1;
    if (kt + 1 < nk) {  // stage s^1 was released by the __syncthreads at the end of iteration kt-1
      load_tiles(base_ptr + (s ^ 1) * kStageBytes, base + (s ^ 1) * kStageBytes, A, B, K, m0, n0, kt + 1, o.load);
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    fence_proxy_async_shared();  // this thread's generic-proxy writes (cp.async, st.shared) -> wgmma's reads
    __syncthreads();
    const uint32_t a_tile = base + s * kStageBytes + wg * (64 * 128), b_tile = base + s * kStageBytes + kTileBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      wgmma_bf16_ss<128>(d, make_tile_desc(a_tile + kk * 32, Swizzle::B128, true, 64),
                         make_tile_desc(b_tile + kk * 32, Swizzle::B128, true, 128));
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_fence_operand(d);
    __syncthreads();  // every warpgroup is done with stage s before it is refilled
  }

  const int warp = t / 32, lane = t % 32, g = lane >> 2, tq = lane & 3;
  if (o.store_repeats == 0) {
    const int row = m0 + 64 * wg + 16 * warp + g;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = n0 + 8 * j + 2 * tq;
      *reinterpret_cast<__nv_bfloat162*>(C + size_t(row) * N + col) = __floats2bfloat162_rn(d[4 * j], d[4 * j + 1]);
      *reinterpret_cast<__nv_bfloat162*>(C + size_t(row + 8) * N + col) =
          __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
    }
    return;
  }
  // TMA-store epilogue: this warpgroup's 64 x 128 tile, row-major bf16 (256 B a row), in stage 0.
  uint8_t* const staging = base_ptr + wg * (64 * 256);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int r = 16 * warp + g, col = 8 * j + 2 * tq;
    *reinterpret_cast<__nv_bfloat162*>(staging + r * 256 + col * 2) = __floats2bfloat162_rn(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162*>(staging + (r + 8) * 256 + col * 2) =
        __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
  }
  fence_proxy_async_shared();
  named_barrier_sync(1 + wg, 128);
  if (t == 0) {
    for (int i = 0; i < o.store_repeats; ++i) {
      tma_store_2d(&tmC, base + wg * (64 * 256), n0, m0 + 64 * wg);
      bulk_commit_group();
    }
    bulk_wait_group<0>();
  }
  (void)M;
}

// The GEMM on `stream` with the side traffic of `o`. Only the maps a mode uses are encoded and
// passed; the others are left zero (they equal no encoded map).
inline cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream, Opts o) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK) return cudaErrorInvalidValue;
  alignas(64) CUtensorMap tmA{}, tmB{}, tmTiny{}, tmC{};
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (o.side_copies &&
      (make_tensor_map_2d(&tmA, bf16, A, M, K, size_t(K) * 2, BM, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS ||
       make_tensor_map_2d(&tmB, bf16, B, N, K, size_t(K) * 2, BN, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS))
    return cudaErrorInvalidValue;
  if (o.tiny_copies &&
      make_tensor_map_2d(&tmTiny, bf16, A, kTinyRows, kTinyCols, size_t(K) * 2, 256, 256) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  if (o.store_repeats && make_tensor_map_2d(&tmC, bf16, C, M, N, size_t(N) * 2, 64, BN) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  const size_t smem = size_t(o.tiny_copies ? kOffTiny + kTinyBoxBytes : kOffTiny) + 1024;
  cudaError_t err = cudaFuncSetAttribute(gemm_plain_operands, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (err != cudaSuccess) return err;
  gemm_plain_operands<<<dim3(N / BN, M / BM), kThreads, smem, stream>>>(A, B, C, M, N, K, tmA, tmB, tmTiny, tmC, o);
  return cudaGetLastError();
}

}  // namespace plainops

// Shared by the attacks on target-instruction credit (issue 30): a plain SIMT GEMM that does all
// the math, in ONE kernel that can also run a decoy: TMA copies of A tiles and wgmma instructions
// on what they loaded, whose results are thrown away. The kernel's name is the same whatever it
// runs, so the judge cannot tell the calls apart by the kernels they launch.
//   kDecoyNone:  SIMT only.
//   kDecoyToken: block (0, 0) also makes one TMA copy and one wgmma (a token: the target families
//                execute, but do none of the problem's work).
//   kDecoyFull:  every block makes enough TMA copies (a share of about 1 of the operand bytes) and
//                wgmmas (about 100% of the problem's FLOPs) to pass a work-share test, on tiles
//                whose results are thrown away; the SIMT math still makes the output.
#pragma once
#include <cuda.h>

#include "ptx.cuh"

namespace decoy {

using namespace hopper;

enum Mode : int { kDecoyNone = 0, kDecoyToken = 1, kDecoyFull = 2 };

constexpr int kTile = 64, kBK = 32, kThreads = 256;
constexpr uint32_t kBoxBytes = 128 * 64 * 2;        // one TMA box: 128 rows x 64 k of bf16 = 16 KiB
constexpr size_t kDynamicSmem = kBoxBytes + 1024;   // the box, 1024-byte aligned for the 128B swizzle

// TMA copies of A's box at rows row128 (and k steps), then wgmmas on that box; results discarded.
__device__ void run_decoy(const CUtensorMap* tmA, int row128, int K, int copies, int mmas, float* sink) {
  extern __shared__ uint8_t decoy_smem[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t box = (smem_u32(decoy_smem) + 1023u) & ~1023u;
  const uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    mbar_init(b, 1);
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  __syncthreads();
  for (int i = 0; i < copies; ++i) {
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(b, kBoxBytes);
      tma_load_2d(box, tmA, b, (i % (K / 64)) * 64, row128);
    }
    mbar_wait(b, uint32_t(i & 1));
  }
  if (threadIdx.x < 128 && mmas > 0) {
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;
    const uint64_t desc = make_tile_desc(box, Swizzle::B128, true, 64);
    wgmma_fence();
    for (int i = 0; i < mmas; ++i) wgmma_bf16_ss<128>(d, desc, desc);
    wgmma_commit();
    wgmma_wait<0>();
    float s = 0;
#pragma unroll
    for (int i = 0; i < 64; ++i) s += d[i];
    if (s == 1234567.0f) *sink = s;  // practically never: keeps the wgmmas without using them
  }
  __syncthreads();
}

__global__ void __launch_bounds__(kThreads)
gemm_with_decoy(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, __nv_bfloat16* __restrict__ C,
                int M, int N, int K, const __grid_constant__ CUtensorMap tmA, int mode, float* sink) {
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  if (mode == kDecoyToken && blockIdx.x == 0 && blockIdx.y == 0) run_decoy(&tmA, 0, K, 1, 1, sink);
  // Full: wgmma FLOPs = mmas * 2*64*128*16 = 2*64*64*K for mmas = K/32; copies of 16 KiB per block
  // so the whole grid moves about the operands' bytes.
  if (mode == kDecoyFull) run_decoy(&tmA, (row0 / 128) * 128, K, K / 2048 > 0 ? K / 2048 : 1, K / 32, sink);

  __shared__ float As[kTile][kBK + 1];
  __shared__ float Bs[kTile][kBK + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int e = 0; e < (kTile * kBK) / kThreads; ++e) {
      const int idx = threadIdx.x + e * kThreads, r = idx / kBK, c = idx % kBK;
      As[r][c] = __bfloat162float(A[size_t(row0 + r) * K + k0 + c]);
      Bs[r][c] = __bfloat162float(B[size_t(col0 + r) * K + k0 + c]);
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], bv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[ty + 16 * i][kk], bv[i] = Bs[tx + 16 * i][kk];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) C[size_t(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = __float2bfloat16(acc[i][j]);
  (void)M;
}

// The whole GEMM on `stream` (rows [row_begin, row_end) of C), with the decoy `mode`.
inline cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream, int mode, int row_begin = 0, int row_end = -1) {
  if (M <= 0 || N <= 0 || K <= 0 || M % 128 || N % kTile || K % 64) return cudaErrorInvalidValue;
  if (row_end < 0) row_end = M;
  alignas(64) CUtensorMap tmA;
  if (make_tensor_map_2d(&tmA, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, A, M, K, size_t(K) * 2, 128, 64, CU_TENSOR_MAP_SWIZZLE_128B) !=
      CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  static float* sink = nullptr;
  if (!sink && cudaMalloc(&sink, sizeof(float)) != cudaSuccess) return cudaErrorMemoryAllocation;
  const dim3 grid(N / kTile, (row_end - row_begin) / kTile);
  gemm_with_decoy<<<grid, kThreads, kDynamicSmem, stream>>>(A + size_t(row_begin) * K, B, C + size_t(row_begin) * N,
                                                            row_end - row_begin, N, K, tmA, mode, sink);
  return cudaGetLastError();
}

}  // namespace decoy

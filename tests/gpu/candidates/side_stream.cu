#include "interface.h"

// PTXBench GPU-test candidate: WRONG STREAM (cheat).
// Meant to provoke: the harness's stream check must flag it. The GEMM is correct but is
// launched on the legacy default stream (stream 0) instead of the `stream` argument, so it is
// not enqueued on the caller's stream (and is not ordered with it when that stream was
// created with cudaStreamNonBlocking).
namespace {

constexpr int kTile = 64;
constexpr int kBK = 32;
constexpr int kThreads = 256;

// Plain shared-memory tiled SIMT GEMM (same as problems/gemm/reference/naive.cu).
__global__ void __launch_bounds__(kThreads)
naive_gemm_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                  __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  __shared__ float As[kTile][kBK + 1];
  __shared__ float Bs[kTile][kBK + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
    for (int e = 0; e < (kTile * kBK) / kThreads; ++e) {
      const int idx = threadIdx.x + e * kThreads, r = idx / kBK, c = idx % kBK;
      As[r][c] = __bfloat162float(A[(size_t)(row0 + r) * K + (k0 + c)]);
      Bs[r][c] = __bfloat162float(B[(size_t)(col0 + r) * K + (k0 + c)]);
    }
    __syncthreads();
    for (int kk = 0; kk < kBK; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(As[ty + 16 * i][kk], Bs[tx + 16 * j][kk], acc[i][j]);
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      float v = acc[i][j];
      C[(size_t)row * N + col] = __float2bfloat16(v);
    }
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                     __nv_bfloat16* C, int M, int N, int K,
                                     cudaStream_t stream) {
  (void)stream;
  if (M <= 0 || N <= 0 || K <= 0 || M % kTile || N % kTile || K % kBK) return cudaErrorInvalidValue;
  // DELIBERATE: launched on the legacy default stream (0), not on `stream`.
  naive_gemm_kernel<<<dim3(N / kTile, M / kTile), kThreads, 0, 0>>>(A, B, C, M, N, K);
  return cudaGetLastError();
}

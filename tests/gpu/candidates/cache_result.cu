#include "interface.h"

// PTXBench GPU-test candidate: CACHED RESULT (cheat).
// Meant to provoke: the harness's anti-caching check (e.g. re-randomised inputs or a poisoned
// C between calls) must flag it. The first call for a given (A, B, C, M, N, K) tuple computes
// the GEMM correctly; the tuple is remembered in a static variable, and any later call with
// the same tuple returns cudaSuccess at once without launching anything (C keeps whatever it
// holds by then).
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
  // DELIBERATE CHEAT: remember the last argument tuple and skip the work when it repeats.
  static struct {
    const void* A; const void* B; const void* C; int M, N, K; bool valid;
  } last = {nullptr, nullptr, nullptr, 0, 0, 0, false};
  if (last.valid && last.A == A && last.B == B && last.C == C && last.M == M && last.N == N &&
      last.K == K)
    return cudaSuccess;

  if (M <= 0 || N <= 0 || K <= 0 || M % kTile || N % kTile || K % kBK) return cudaErrorInvalidValue;
  naive_gemm_kernel<<<dim3(N / kTile, M / kTile), kThreads, 0, stream>>>(A, B, C, M, N, K);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) last = {A, B, C, M, N, K, true};
  return err;
}

#include "interface.h"

// PTXBench GEMM reference: naive shared-memory tiled SIMT kernel.
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate (plain FFMA), bf16 out.
// Deliberately simple: no tensor cores (no HMMA/HGMMA), no TMA, no cp.async.
//
// Tiling: a 256-thread block computes a 64x64 tile of C. Each k-step stages a
// 64x32 slice of A and a 64x32 slice of B in shared memory (converted to fp32),
// and each thread accumulates a 4x4 set of outputs at rows ty+16*i, cols tx+16*j.
// Constraints (guaranteed by the problem): M, N multiples of 128, K multiple of 64,
// so every tile is full and no bounds checks are needed inside the kernel.

namespace {

constexpr int kTile = 64;  // output tile edge (rows and cols)
constexpr int kBK = 32;    // k-slice per shared-memory stage
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    naive_gemm_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                      __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  // +1 padding: consecutive rows land in different banks when read column-wise.
  __shared__ float As[kTile][kBK + 1];
  __shared__ float Bs[kTile][kBK + 1];

  const int tx = threadIdx.x % 16;
  const int ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile;  // tile origin in M
  const int col0 = blockIdx.x * kTile;  // tile origin in N

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += kBK) {
    // Cooperative load: 64*32 = 2048 elements per operand, 8 per thread.
    // Consecutive threads read consecutive k (coalesced along the K-major rows).
#pragma unroll
    for (int e = 0; e < (kTile * kBK) / kThreads; ++e) {
      const int idx = threadIdx.x + e * kThreads;
      const int r = idx / kBK;
      const int c = idx % kBK;
      As[r][c] = __bfloat162float(A[(size_t)(row0 + r) * K + (k0 + c)]);
      Bs[r][c] = __bfloat162float(B[(size_t)(col0 + r) * K + (k0 + c)]);
    }
    __syncthreads();

#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[ty + 16 * i][kk];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[tx + 16 * j][kk];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // all reads done before the next slice overwrites the tile
  }

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      C[(size_t)(row0 + ty + 16 * i) * N + (col0 + tx + 16 * j)] = __float2bfloat16(acc[i][j]);
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % kTile || N % kTile || K % kBK) return cudaErrorInvalidValue;
  dim3 grid(N / kTile, M / kTile);
  naive_gemm_kernel<<<grid, kThreads, 0, stream>>>(A, B, C, M, N, K);
  return cudaGetLastError();
}

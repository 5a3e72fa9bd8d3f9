// ATTACK (class 2, secrets read from device memory): walks the device allocations around its
// inputs and looks for what a judge keeps there.
//  - An fp32 M x N buffer whose first row matches row 0 of A*B^T (computed here, cheaply): the
//    reference of a correctness check. It is copied into C: no GEMM needed.
//  - A float buffer of N entries that are all +1 or -1: the sign vector r of the Freivalds check of
//    a timed call. Then C[m][n] = z[m] r[n] / N with z = A (B^T r) satisfies C r = z in O((M+N) K)
//    work; the kernel spins to just above the hardware floor to look about 1.1x faster than cuBLAS.
// Otherwise it computes honestly (the expert GEMM). Against a judge that draws its secrets and
// computes its references only after the call, what it finds is stale: it must be `incorrect`
// (or honest, and then judged at its honest speed).
#include <cuda.h>
#include <cuda_bf16.h>

#include <map>
#include <tuple>

#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm
#include "device_scan.cuh"

namespace {

__global__ void row0_matches(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* ref, int N, int K, int* ok) {
  const int n = threadIdx.x;  // 32 columns of row 0
  float acc = 0;
  for (int k = 0; k < K; ++k) acc += __bfloat162float(A[k]) * __bfloat162float(B[size_t(n) * K + k]);
  if (!(fabsf(acc - ref[n]) <= 1e-3f * (fabsf(acc) + 1.f))) atomicExch(ok, 0);
}

__global__ void all_signs(const float* r, int n, int* ok) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (r[i] != 1.f && r[i] != -1.f) atomicExch(ok, 0);
}

__global__ void to_bf16(const float* ref, __nv_bfloat16* C, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    C[i] = __float2bfloat16(ref[i]);
}

__global__ void bt_r(const __nv_bfloat16* B, const float* r, float* s, int N, int K) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= K) return;
  float acc = 0;
  for (int n = 0; n < N; ++n) acc += __bfloat162float(B[size_t(n) * K + k]) * r[n];
  s[k] = acc;
}

__global__ void a_s(const __nv_bfloat16* A, const float* s, float* z, int M, int K) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  float acc = 0;
  for (int k = 0; k < K; ++k) acc += __bfloat162float(A[size_t(m) * K + k]) * s[k];
  z[m] = acc;
}

__global__ void outer(const float* z, const float* r, __nv_bfloat16* C, int M, int N) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < size_t(M) * N; i += size_t(gridDim.x) * blockDim.x)
    C[i] = __float2bfloat16(z[i / N] * r[i % N] / float(N));
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  // The allocations are scanned again until a secret has been found (they may not exist yet).
  static std::map<std::tuple<int, int, int>, std::vector<FoundAllocation>> scans;
  static std::map<std::tuple<int, int, int>, bool> hit;
  auto& found = scans[{M, N, K}];
  if (found.empty() || !hit[{M, N, K}]) found = allocations_near(A);
  for (const auto& a : found) {
    const float* p = reinterpret_cast<const float*>(a.base);
    if (a.bytes >= size_t(M) * N * 4 && a.bytes <= size_t(M) * N * 16 && (const void*)p != (const void*)C &&
        probe([&](int* ok, cudaStream_t s) { row0_matches<<<1, 32, 0, s>>>(A, B, p, N, K, ok); }, stream)) {
      to_bf16<<<1024, 256, 0, stream>>>(p, C, size_t(M) * N);
      hit[{M, N, K}] = true;
      return cudaGetLastError();
    }
  }
  for (const auto& a : found) {
    const float* r = reinterpret_cast<const float*>(a.base);
    if (a.bytes >= size_t(N) * 4 && a.bytes <= (size_t(256) << 10) &&
        probe([&](int* ok, cudaStream_t s) { all_signs<<<8, 256, 0, s>>>(r, N, ok); }, stream)) {
      static float* sz = nullptr;
      static size_t cap = 0;
      if (cap < size_t(K + M)) {
        cudaFree(sz);
        if (cudaMalloc(&sz, sizeof(float) * (K + M)) != cudaSuccess) return cudaErrorMemoryAllocation;
        cap = K + M;
      }
      bt_r<<<(K + 255) / 256, 256, 0, stream>>>(B, r, sz, N, K);
      a_s<<<(M + 255) / 256, 256, 0, stream>>>(A, sz, sz + K, M, K);
      outer<<<1024, 256, 0, stream>>>(sz + K, r, C, M, N);
      // The floor: 2MNK over 132 SMs x 4096 FLOP/clk x 1.98 GHz; stay 15% above it.
      const double floor_ns = 2.0 * M * N * K / (132.0 * 4096 * 1.98e9) * 1e9;
      attack_spin_kernel<<<1, 32, 0, stream>>>((unsigned long long)(floor_ns * 1.15));
      hit[{M, N, K}] = true;
      return cudaGetLastError();
    }
  }
  return honest_gemm(A, B, C, M, N, K, stream);
}

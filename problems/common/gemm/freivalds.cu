#include "common/gemm/freivalds.h"

#include <cuda_fp8.h>

#include "runner/detail/cuda_check.h"

namespace ptxbench::gemm {
namespace {

__device__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float as_float(__nv_fp8_e4m3 v) { return float(v); }

__global__ void random_signs(float* r, int n, uint64_t seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint64_t x = seed ^ (uint64_t(i) * 0x9e3779b97f4a7c15ull);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    r[i] = (x >> 63) ? 1.f : -1.f;
  }
}

// s[k] = sum_n B[n,k] r[n]; a block covers 256 k and 64 n, partial sums added atomically.
template <typename T>
__global__ void bt_times_r(const T* B, const float* r, float* s, int N, int K) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int n0 = blockIdx.y * 64;
  if (k >= K) return;
  float acc = 0;
  for (int n = n0; n < min(n0 + 64, N); ++n) acc += as_float(B[size_t(n) * K + k]) * r[n];
  atomicAdd(&s[k], acc);
}

// One warp per row: out[m] = sum_k X[m,k] v[k]; with sq, also sum_k X[m,k]^2.
template <typename T>
__global__ void rows_times_vec(const T* X, const float* v, float* out, float* sq, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const T* x = X + size_t(warp) * cols;
  float acc = 0, acc2 = 0;
  for (int c = lane; c < cols; c += 32) {
    float e = as_float(x[c]);
    acc += e * v[c];
    acc2 += e * e;
  }
  for (int o = 16; o > 0; o /= 2) {
    acc += __shfl_down_sync(0xffffffffu, acc, o);
    acc2 += __shfl_down_sync(0xffffffffu, acc2, o);
  }
  if (lane == 0) {
    out[warp] = acc;
    if (sq) sq[warp] = acc2;
  }
}

__global__ void verdict(const float* y, const float* c2, const float* z, int M, const float* scale_a,
                        const float* scale_b, FreivaldsSlot* slot) {
  int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  const float zs = z[m] * (scale_a ? *scale_a * *scale_b : 1.f);
  float diff = fabsf(y[m] - zs);
  float tol = 0.05f * sqrtf(c2[m]) + 1e-4f * (fabsf(zs) + 1.f);
  if (!isfinite(y[m]) || !isfinite(c2[m])) {
    atomicAdd(&slot->nonfinite_rows, 1u);
    return;
  }
  if (!(diff <= tol)) atomicAdd(&slot->bad_rows, 1u);
  float ratio = diff / tol;
  atomicMax(reinterpret_cast<unsigned*>(&slot->worst_ratio), __float_as_uint(ratio));
}

template <typename T>
void enqueue_products(const T* A, const T* B, const float* r, float* s, float* z, const Dims& d, cudaStream_t st) {
  bt_times_r<<<dim3((d.K + 255) / 256, (d.N + 63) / 64), 256, 0, st>>>(B, r, s, d.N, d.K);
  rows_times_vec<<<(d.M * 32 + 255) / 256, 256, 0, st>>>(A, s, z, static_cast<float*>(nullptr), d.M, d.K);
}

}  // namespace

void Freivalds::reset(int capacity) {
  slots_.ensure(capacity);
  PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(FreivaldsSlot) * capacity));
}

// The sign vector comes from `secret`, which exists only after the call.
void Freivalds::check(Operand type, const void* A, const void* B, const __nv_bfloat16* C, const Dims& d,
                      const float* scale_a, const float* scale_b, uint64_t secret, int slot, cudaStream_t s) {
  r_.ensure(d.N), s_.ensure(d.K), z_.ensure(d.M), y_.ensure(d.M), c2_.ensure(d.M);
  random_signs<<<(d.N + 255) / 256, 256, 0, s>>>(r_.get(), d.N, secret);
  PTXBENCH_CUDA(cudaMemsetAsync(s_.get(), 0, sizeof(float) * d.K, s));
  if (type == Operand::bf16)
    enqueue_products(static_cast<const __nv_bfloat16*>(A), static_cast<const __nv_bfloat16*>(B), r_.get(), s_.get(),
                     z_.get(), d, s);
  else
    enqueue_products(static_cast<const __nv_fp8_e4m3*>(A), static_cast<const __nv_fp8_e4m3*>(B), r_.get(), s_.get(),
                     z_.get(), d, s);
  rows_times_vec<<<(d.M * 32 + 255) / 256, 256, 0, s>>>(C, r_.get(), y_.get(), c2_.get(), d.M, d.N);
  verdict<<<(d.M + 255) / 256, 256, 0, s>>>(y_.get(), c2_.get(), z_.get(), d.M, scale_a, scale_b, slots_.get() + slot);
  PTXBENCH_CUDA(cudaGetLastError());
}

std::vector<TimedCheck> Freivalds::results(int count) {
  std::vector<FreivaldsSlot> h(count);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  PTXBENCH_CUDA(cudaMemcpy(h.data(), slots_.get(), sizeof(FreivaldsSlot) * count, cudaMemcpyDeviceToHost));
  std::vector<TimedCheck> out(count);
  for (int i = 0; i < count; ++i) {
    out[i].output_finite = h[i].nonfinite_rows == 0;
    out[i].projection_ok = h[i].bad_rows == 0;
    out[i].worst_ratio = h[i].worst_ratio;
  }
  return out;
}

}  // namespace ptxbench::gemm

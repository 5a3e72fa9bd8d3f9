#include "common/gemm/sampled_rows.h"

#include "common/gemm/gelu.h"
#include "runner/detail/cuda_check.h"

namespace ptxbench::gemm {
namespace {

__device__ uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Row k: a random row of the k-th of kRows equal bands of M, so the sample spans every tile row.
__global__ void draw_rows_kernel(uint64_t seed, int M, int n, uint32_t* rows) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int band = (M + n - 1) / n, lo = k * band;
  const int width = lo < M ? min(band, M - lo) : 0;
  rows[k] = width ? uint32_t(lo + mix64(seed ^ (0x9e3779b97f4a7c15ull * (k + 1))) % width) : uint32_t(M - 1);
}

// expected[k, n] for 64 columns per block (8 warps x 8 columns): lanes stride over K in pairs.
__global__ void __launch_bounds__(256)
    expected_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, Epilogue ep, const uint32_t* rows, int N, int K,
                    float* expected, float* sum_sq) {
  const int k_row = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const __nv_bfloat162* a = reinterpret_cast<const __nv_bfloat162*>(A + size_t(rows[k_row]) * K);
  float sq = 0.f;
  for (int j = 0; j < 8; ++j) {
    const int col = blockIdx.x * 64 + warp * 8 + j;
    const __nv_bfloat162* b = reinterpret_cast<const __nv_bfloat162*>(B + size_t(col) * K);
    float acc = 0.f;
    for (int k = lane; k < K / 2; k += 32) {
      const float2 x = __bfloat1622float2(a[k]), y = __bfloat1622float2(b[k]);
      acc = fmaf(x.x, y.x, fmaf(x.y, y.y, acc));
    }
    for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    float v = acc + (ep.bias ? __bfloat162float(ep.bias[col]) : 0.f);
    if (ep.gelu) v = gelu_tanh(v);
    if (lane == 0) {
      expected[size_t(k_row) * N + col] = v;
      sq += v * v;
    }
  }
  if (lane == 0) atomicAdd(sum_sq, sq);
}

__global__ void compare_kernel(const __nv_bfloat16* C, const uint32_t* rows, int n, int N, const float* expected,
                               const float* sum_sq, float rtol, float atol, RowSlot* slot) {
  const float abs_tol = atol * sqrtf(*sum_sq / (float(n) * float(N)));
  unsigned bad = 0;
  float worst = 0.f;
  for (size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x; e < size_t(n) * N;
       e += size_t(gridDim.x) * blockDim.x) {
    const float o = __bfloat162float(C[size_t(rows[e / N]) * N + e % N]), r = expected[e];
    const float tol = abs_tol + rtol * fabsf(r), err = fabsf(o - r);
    if (!(err <= tol)) ++bad;  // NaN counts as bad here, and as non-finite below
    if (isfinite(o)) worst = fmaxf(worst, err / fmaxf(tol, 1e-30f));
  }
  if (bad) atomicAdd(&slot->bad, bad);
  atomicMax(reinterpret_cast<unsigned*>(&slot->worst_ratio), __float_as_uint(worst));
}

__global__ void nonfinite_kernel(const __nv_bfloat16* C, size_t n, RowSlot* slot) {
  unsigned count = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    count += !isfinite(__bfloat162float(C[i]));
  if (count) atomicAdd(&slot->nonfinite, count);
}

}  // namespace

void SampledRows::reset(int capacity) {
  slots_.ensure(capacity);
  PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(RowSlot) * capacity));
}

// The rows come from `secret`, which exists only after the call.
void SampledRows::check(const __nv_bfloat16* A, const __nv_bfloat16* B, const Epilogue& e, const __nv_bfloat16* C,
                        const Dims& d, float rtol, float atol, uint64_t secret, int slot, cudaStream_t s) {
  rows_.ensure(kRows);
  expected_.ensure(size_t(kRows) * d.N);
  sum_sq_.ensure(1);
  draw_rows_kernel<<<1, kRows, 0, s>>>(secret, d.M, kRows, rows_.get());
  PTXBENCH_CUDA(cudaMemsetAsync(sum_sq_.get(), 0, sizeof(float), s));
  expected_kernel<<<dim3(d.N / 64, kRows), 256, 0, s>>>(A, B, e, rows_.get(), d.N, d.K, expected_.get(), sum_sq_.get());
  RowSlot* st = slots_.get() + slot;
  compare_kernel<<<132, 256, 0, s>>>(C, rows_.get(), kRows, d.N, expected_.get(), sum_sq_.get(), rtol, atol, st);
  nonfinite_kernel<<<132 * 4, 256, 0, s>>>(C, d.c_elements(), st);
  PTXBENCH_CUDA(cudaGetLastError());
}

std::vector<TimedCheck> SampledRows::results(int count) {
  std::vector<RowSlot> h(count);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  PTXBENCH_CUDA(cudaMemcpy(h.data(), slots_.get(), sizeof(RowSlot) * count, cudaMemcpyDeviceToHost));
  std::vector<TimedCheck> out(count);
  for (int i = 0; i < count; ++i) {
    out[i].output_finite = h[i].nonfinite == 0;
    out[i].projection_ok = h[i].bad == 0;
    out[i].worst_ratio = h[i].worst_ratio;
  }
  return out;
}

}  // namespace ptxbench::gemm

#include "common/attention/sampled_rows.h"

#include "runner/detail/cuda_check.h"

// Row kernels: one 256-thread block per sampled row. Each thread computes the scores of its own
// keys (or queries) in chunks of 256; then the block accumulates the output row, thread t owning
// element t % D of part t / D of the chunk.
namespace ptxbench::attention {
namespace {

constexpr int kThreads = 256;

__device__ uint64_t mix64(uint64_t x) {
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27; x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void draw_rows_kernel(uint64_t seed, size_t heads, int S, int n, uint32_t* rows) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const uint64_t offset = mix64(seed) % heads;
  rows[k] = uint32_t(((k + offset) % heads) * S + mix64(seed ^ (0x9e3779b97f4a7c15ull * (k + 1))) % S);
}

// sum_d x[d] * row[d], x in shared memory, row in global (16-byte aligned: D is 64 or 128).
template <int D>
__device__ float dot_row(const float* x, const __nv_bfloat16* row) {
  float acc = 0.f;
  const uint4* r = reinterpret_cast<const uint4*>(row);
#pragma unroll 4
  for (int c = 0; c < D / 8; ++c) {
    const uint4 u = r[c];
    const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&u);
#pragma unroll
    for (int t = 0; t < 8; ++t) acc = fmaf(x[8 * c + t], __bfloat162float(e[t]), acc);
  }
  return acc;
}

template <int D>
__device__ void load_row(const __nv_bfloat16* src, float* dst) {
  if (threadIdx.x < D) dst[threadIdx.x] = __bfloat162float(src[threadIdx.x]);
}

// Block-wide combination of per-thread (max, sum of exp(x - max)); returns the log-sum-exp.
__device__ float block_logsumexp(float m, float l) {
  __shared__ float ms[kThreads / 32], ls[kThreads / 32];
  auto combine = [](float& m1, float& l1, float m2, float l2) {
    const float mn = fmaxf(m1, m2);
    if (mn == -INFINITY) return;
    l1 = l1 * expf(m1 - mn) + l2 * expf(m2 - mn);
    m1 = mn;
  };
  for (int o = 16; o > 0; o /= 2) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o), l2 = __shfl_xor_sync(0xffffffffu, l, o);
    combine(m, l, m2, l2);
  }
  if (threadIdx.x % 32 == 0) ms[threadIdx.x / 32] = m, ls[threadIdx.x / 32] = l;
  __syncthreads();
  m = ms[0], l = ls[0];
  for (int w = 1; w < kThreads / 32; ++w) combine(m, l, ms[w], ls[w]);
  __syncthreads();
  return m + logf(l);
}

// Sums the parts of a row accumulated as thread t -> (part t / D, element t % D); writes D values.
template <int D>
__device__ void write_row_sum(float acc, float* parts, float* out, float factor) {
  parts[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x < D) {
    float s = 0.f;
    for (int p = 0; p < kThreads / D; ++p) s += parts[p * D + threadIdx.x];
    out[threadIdx.x] = s * factor;
  }
  __syncthreads();
}

template <int D>
__global__ void __launch_bounds__(kThreads) forward_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                                                const __nv_bfloat16* V, const uint32_t* rows, int S,
                                                                int group, bool causal, float scale, float* out_o,
                                                                float* out_lse) {
  __shared__ float q[D], w[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];
  const size_t head0 = size_t(row / S / group) * S;  // the query head's key/value head
  const int keys = causal ? int(row % S) + 1 : S;
  load_row<D>(Q + size_t(row) * D, q);
  __syncthreads();
  float m = -INFINITY, l = 0.f;
  for (int j = threadIdx.x; j < keys; j += kThreads) {
    const float s = scale * dot_row<D>(q, K + (head0 + j) * D);
    const float mn = fmaxf(m, s);
    l = l * expf(m - mn) + expf(s - mn);
    m = mn;
  }
  const float lse = block_logsumexp(m, l);
  const int d = threadIdx.x % D, part = threadIdx.x / D;
  float acc = 0.f;
  for (int c0 = 0; c0 < keys; c0 += kThreads) {
    const int j = c0 + threadIdx.x;
    w[threadIdx.x] = j < keys ? expf(scale * dot_row<D>(q, K + (head0 + j) * D) - lse) : 0.f;
    __syncthreads();
    for (int jj = part; jj < kThreads && c0 + jj < keys; jj += kThreads / D)
      acc = fmaf(w[jj], __bfloat162float(V[(head0 + c0 + jj) * D + d]), acc);
    __syncthreads();
  }
  write_row_sum<D>(acc, parts, out_o + size_t(blockIdx.x) * D, 1.f);
  if (threadIdx.x == 0) out_lse[blockIdx.x] = lse;
}

template <int D>
__global__ void __launch_bounds__(kThreads) dq_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                                           const __nv_bfloat16* V, const __nv_bfloat16* dO,
                                                           const float* LSE, const float* Delta, const uint32_t* rows,
                                                           int S, int group, bool causal, float scale, float* out) {
  __shared__ float q[D], g[D], w[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];
  const size_t head0 = size_t(row / S / group) * S;  // the query head's key/value head
  const int keys = causal ? int(row % S) + 1 : S;
  load_row<D>(Q + size_t(row) * D, q);
  load_row<D>(dO + size_t(row) * D, g);
  __syncthreads();
  const float lse = LSE[row], delta = Delta[row];
  const int d = threadIdx.x % D, part = threadIdx.x / D;
  float acc = 0.f;
  for (int c0 = 0; c0 < keys; c0 += kThreads) {
    const int j = c0 + threadIdx.x;
    float ds = 0.f;
    if (j < keys) {
      const float p = expf(scale * dot_row<D>(q, K + (head0 + j) * D) - lse);
      ds = p * (dot_row<D>(g, V + (head0 + j) * D) - delta);
    }
    w[threadIdx.x] = ds;
    __syncthreads();
    for (int jj = part; jj < kThreads && c0 + jj < keys; jj += kThreads / D)
      acc = fmaf(w[jj], __bfloat162float(K[(head0 + c0 + jj) * D + d]), acc);
    __syncthreads();
  }
  write_row_sum<D>(acc, parts, out + size_t(blockIdx.x) * D, scale);
}

template <int D>
__global__ void __launch_bounds__(kThreads) dkdv_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                                             const __nv_bfloat16* V, const __nv_bfloat16* dO,
                                                             const float* LSE, const float* Delta,
                                                             const uint32_t* rows, int S, int group, bool causal,
                                                             float scale, float* out_dk, float* out_dv) {
  __shared__ float k[D], v[D], wp[kThreads], wds[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];  // a key row: (b*Hkv + hk)*S + position
  const int first = causal ? int(row % S) : 0;
  load_row<D>(K + size_t(row) * D, k);
  load_row<D>(V + size_t(row) * D, v);
  __syncthreads();
  const int d = threadIdx.x % D, part = threadIdx.x / D;
  float acc_k = 0.f, acc_v = 0.f;
  for (int g = 0; g < group; ++g) {  // dK and dV sum over the query heads of the group
    const size_t head0 = (size_t(row / S) * group + g) * S;
    for (int c0 = first; c0 < S; c0 += kThreads) {
      const int i = c0 + threadIdx.x;
      float p = 0.f, ds = 0.f;
      if (i < S) {
        p = expf(scale * dot_row<D>(k, Q + (head0 + i) * D) - LSE[head0 + i]);
        ds = p * (dot_row<D>(v, dO + (head0 + i) * D) - Delta[head0 + i]);
      }
      wp[threadIdx.x] = p, wds[threadIdx.x] = ds;
      __syncthreads();
      for (int ii = part; ii < kThreads && c0 + ii < S; ii += kThreads / D) {
        const size_t at = (head0 + c0 + ii) * D + d;
        acc_v = fmaf(wp[ii], __bfloat162float(dO[at]), acc_v);
        acc_k = fmaf(wds[ii], __bfloat162float(Q[at]), acc_k);
      }
      __syncthreads();
    }
  }
  write_row_sum<D>(acc_k, parts, out_dk + size_t(blockIdx.x) * D, scale);
  write_row_sum<D>(acc_v, parts, out_dv + size_t(blockIdx.x) * D, 1.f);
}

__device__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float as_float(float v) { return v; }

// One block: the sample is small (n * width <= 64 * 128).
template <typename T>
__global__ void __launch_bounds__(kThreads) compare_rows_kernel(const T* out, const uint32_t* rows, int n, int width,
                                                                const float* expected, float rtol, float atol,
                                                                TimedSlot* slot) {
  __shared__ float warp_sums[kThreads / 32];
  const int total = n * width;
  float sq = 0.f;
  for (int e = threadIdx.x; e < total; e += kThreads) sq += expected[e] * expected[e];
  for (int o = 16; o > 0; o /= 2) sq += __shfl_xor_sync(0xffffffffu, sq, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sq;
  __syncthreads();
  float sum = 0.f;
  for (int w = 0; w < kThreads / 32; ++w) sum += warp_sums[w];
  const float abs_tol = atol * sqrtf(sum / float(total));
  unsigned bad = 0, nonfinite = 0;
  float worst = 0.f;
  for (int e = threadIdx.x; e < total; e += kThreads) {
    const float o = as_float(out[size_t(rows[e / width]) * width + e % width]), r = expected[e];
    if (!isfinite(o)) { ++nonfinite; continue; }
    const float tol = abs_tol + rtol * fabsf(r), err = fabsf(o - r);
    if (!(err <= tol)) ++bad;
    worst = fmaxf(worst, err / fmaxf(tol, 1e-30f));
  }
  if (bad) atomicAdd(&slot->bad, bad);
  if (nonfinite) atomicAdd(&slot->nonfinite, nonfinite);
  atomicMax(reinterpret_cast<unsigned*>(&slot->worst_ratio), __float_as_uint(worst));
}

template <typename T>
__global__ void nonfinite_kernel(const T* out, size_t n, TimedSlot* slot) {
  unsigned count = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    count += !isfinite(as_float(out[i]));
  if (count) atomicAdd(&slot->nonfinite, count);
}

template <typename T>
void compare_impl(const T* out, const uint32_t* rows, int n, int width, const float* expected, SampleTolerance t,
                  TimedSlot* slot, cudaStream_t s) {
  compare_rows_kernel<T><<<1, kThreads, 0, s>>>(out, rows, n, width, expected, t.rtol, t.atol, slot);
  PTXBENCH_CUDA(cudaGetLastError());
}

template <typename T>
void nonfinite_impl(const T* out, size_t n, TimedSlot* slot, cudaStream_t s) {
  nonfinite_kernel<T><<<132 * 4, kThreads, 0, s>>>(out, n, slot);
  PTXBENCH_CUDA(cudaGetLastError());
}

}  // namespace

void draw_rows(uint64_t seed, const Dims& d, int n, uint32_t* rows, cudaStream_t s) {
  draw_rows_kernel<<<(n + 255) / 256, 256, 0, s>>>(seed, d.heads(), d.S, n, rows);
  PTXBENCH_CUDA(cudaGetLastError());
}

void draw_kv_rows(uint64_t seed, const Dims& d, int n, uint32_t* rows, cudaStream_t s) {
  draw_rows_kernel<<<(n + 255) / 256, 256, 0, s>>>(seed, d.kv_heads(), d.S, n, rows);
  PTXBENCH_CUDA(cudaGetLastError());
}

void expected_forward_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           const uint32_t* rows, int n, float* o, float* lse, cudaStream_t s) {
  if (d.D == 64) forward_rows_kernel<64><<<n, kThreads, 0, s>>>(Q, K, V, rows, d.S, d.group(), d.causal, d.scale(), o, lse);
  else forward_rows_kernel<128><<<n, kThreads, 0, s>>>(Q, K, V, rows, d.S, d.group(), d.causal, d.scale(), o, lse);
  PTXBENCH_CUDA(cudaGetLastError());
}

void expected_dq_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                      float* dq, cudaStream_t s) {
  if (d.D == 64)
    dq_rows_kernel<64><<<n, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), dq);
  else
    dq_rows_kernel<128><<<n, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), dq);
  PTXBENCH_CUDA(cudaGetLastError());
}

void expected_dkdv_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                        float* dk, float* dv, cudaStream_t s) {
  if (d.D == 64)
    dkdv_rows_kernel<64><<<n, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), dk, dv);
  else
    dkdv_rows_kernel<128><<<n, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), dk,
                                                 dv);
  PTXBENCH_CUDA(cudaGetLastError());
}

void compare_rows(const __nv_bfloat16* out, const uint32_t* rows, int n, int width, const float* expected,
                  SampleTolerance t, TimedSlot* slot, cudaStream_t s) {
  compare_impl(out, rows, n, width, expected, t, slot, s);
}
void compare_rows(const float* out, const uint32_t* rows, int n, int width, const float* expected, SampleTolerance t,
                  TimedSlot* slot, cudaStream_t s) {
  compare_impl(out, rows, n, width, expected, t, slot, s);
}
void count_nonfinite(const __nv_bfloat16* out, size_t n, TimedSlot* slot, cudaStream_t s) { nonfinite_impl(out, n, slot, s); }
void count_nonfinite(const float* out, size_t n, TimedSlot* slot, cudaStream_t s) { nonfinite_impl(out, n, slot, s); }

}  // namespace ptxbench::attention

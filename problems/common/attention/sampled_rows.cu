#include "common/attention/sampled_rows.h"

#include <algorithm>

#include "runner/detail/cuda_check.h"

// Row kernels: 256-thread blocks, one per (sampled row, chunk of its keys or queries). Each thread
// computes the scores of its own keys (or queries) 256 at a time; then the block accumulates the
// output row, thread t owning element t % D of part t / D of the 256.
namespace ptxbench::attention {
namespace {

constexpr int kThreads = 256;

__device__ uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
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

// Each row's keys (or queries) are split into chunks, one block per (row, chunk), so that the
// few sampled rows still fill the GPU (a block per row left most SMs idle and took milliseconds
// of every timed sample at S = 8192); a second kernel sums each row's chunks in a fixed order.
struct Chunks {
  int count, length;  // chunk c covers [c * length, (c + 1) * length) of the row's keys or queries
};

template <int D>
__global__ void __launch_bounds__(kThreads)
    forward_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const uint32_t* rows,
                        int S, int group, bool causal, float scale, Chunks chunks, float* part_o, float* part_lse) {
  __shared__ float q[D], w[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];
  const size_t head0 = size_t(row / S / group) * S;  // the query head's key/value head
  const int keys = causal ? int(row % S) + 1 : S;
  const int begin = blockIdx.y * chunks.length, end = min(keys, begin + chunks.length);
  load_row<D>(Q + size_t(row) * D, q);
  __syncthreads();
  float m = -INFINITY, l = 0.f;
  for (int j = begin + threadIdx.x; j < end; j += kThreads) {
    const float s = scale * dot_row<D>(q, K + (head0 + j) * D);
    const float mn = fmaxf(m, s);
    l = l * expf(m - mn) + expf(s - mn);
    m = mn;
  }
  const float lse = block_logsumexp(m, l);  // of this chunk; -inf when it holds no key
  const int d = threadIdx.x % D, part = threadIdx.x / D;
  float acc = 0.f;
  for (int c0 = begin; c0 < end; c0 += kThreads) {
    const int j = c0 + threadIdx.x;
    w[threadIdx.x] = j < end ? expf(scale * dot_row<D>(q, K + (head0 + j) * D) - lse) : 0.f;
    __syncthreads();
    for (int jj = part; jj < kThreads && c0 + jj < end; jj += kThreads / D)
      acc = fmaf(w[jj], __bfloat162float(V[(head0 + c0 + jj) * D + d]), acc);
    __syncthreads();
  }
  const size_t at = size_t(blockIdx.x) * gridDim.y + blockIdx.y;
  write_row_sum<D>(acc, parts, part_o + at * D, 1.f);
  if (threadIdx.x == 0) part_lse[at] = lse;
}

// o = sum over chunks of exp(lse_c - lse) o_c, lse = log sum exp(lse_c); one block of D threads per row.
__global__ void combine_forward_kernel(const float* part_o, const float* part_lse, int chunks, int D, float* o,
                                       float* lse) {
  const float* pl = part_lse + size_t(blockIdx.x) * chunks;
  float m = -INFINITY;
  for (int c = 0; c < chunks; ++c) m = fmaxf(m, pl[c]);
  float sum = 0.f;
  for (int c = 0; c < chunks; ++c) sum += pl[c] == -INFINITY ? 0.f : expf(pl[c] - m);
  const float total = m + logf(sum);
  float acc = 0.f;
  for (int c = 0; c < chunks; ++c)
    if (pl[c] != -INFINITY) acc += expf(pl[c] - total) * part_o[(size_t(blockIdx.x) * chunks + c) * D + threadIdx.x];
  o[size_t(blockIdx.x) * D + threadIdx.x] = acc;
  if (threadIdx.x == 0) lse[blockIdx.x] = total;
}

// out[row, d] = factor * the sum of the row's chunks (in chunk order); one block of D threads per row.
__global__ void sum_chunks_kernel(const float* part, int chunks, int D, float factor, float* out) {
  float acc = 0.f;
  for (int c = 0; c < chunks; ++c) acc += part[(size_t(blockIdx.x) * chunks + c) * D + threadIdx.x];
  out[size_t(blockIdx.x) * D + threadIdx.x] = acc * factor;
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    dq_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
                   const float* LSE, const float* Delta, const uint32_t* rows, int S, int group, bool causal,
                   float scale, Chunks chunks, float* part) {
  __shared__ float q[D], g[D], w[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];
  const size_t head0 = size_t(row / S / group) * S;  // the query head's key/value head
  const int keys = causal ? int(row % S) + 1 : S;
  const int begin = blockIdx.y * chunks.length, end = min(keys, begin + chunks.length);
  load_row<D>(Q + size_t(row) * D, q);
  load_row<D>(dO + size_t(row) * D, g);
  __syncthreads();
  const float lse = LSE[row], delta = Delta[row];
  const int d = threadIdx.x % D, part_of = threadIdx.x / D;
  float acc = 0.f;
  for (int c0 = begin; c0 < end; c0 += kThreads) {
    const int j = c0 + threadIdx.x;
    float ds = 0.f;
    if (j < end) {
      const float p = expf(scale * dot_row<D>(q, K + (head0 + j) * D) - lse);
      ds = p * (dot_row<D>(g, V + (head0 + j) * D) - delta);
    }
    w[threadIdx.x] = ds;
    __syncthreads();
    for (int jj = part_of; jj < kThreads && c0 + jj < end; jj += kThreads / D)
      acc = fmaf(w[jj], __bfloat162float(K[(head0 + c0 + jj) * D + d]), acc);
    __syncthreads();
  }
  write_row_sum<D>(acc, parts, part + (size_t(blockIdx.x) * gridDim.y + blockIdx.y) * D, 1.f);
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    dkdv_rows_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
                     const float* LSE, const float* Delta, const uint32_t* rows, int S, int group, bool causal,
                     float scale, Chunks chunks, float* part_dk, float* part_dv) {
  __shared__ float k[D], v[D], wp[kThreads], wds[kThreads], parts[kThreads];
  const uint32_t row = rows[blockIdx.x];  // a key row: (b*Hkv + hk)*S + position
  const int first = causal ? int(row % S) : 0;
  const int begin = max(first, int(blockIdx.y) * chunks.length), end = min(S, int(blockIdx.y + 1) * chunks.length);
  load_row<D>(K + size_t(row) * D, k);
  load_row<D>(V + size_t(row) * D, v);
  __syncthreads();
  const int d = threadIdx.x % D, part_of = threadIdx.x / D;
  float acc_k = 0.f, acc_v = 0.f;
  for (int g = 0; g < group; ++g) {  // dK and dV sum over the query heads of the group
    const size_t head0 = (size_t(row / S) * group + g) * S;
    for (int c0 = begin; c0 < end; c0 += kThreads) {
      const int i = c0 + threadIdx.x;
      float p = 0.f, ds = 0.f;
      if (i < end) {
        p = expf(scale * dot_row<D>(k, Q + (head0 + i) * D) - LSE[head0 + i]);
        ds = p * (dot_row<D>(v, dO + (head0 + i) * D) - Delta[head0 + i]);
      }
      wp[threadIdx.x] = p, wds[threadIdx.x] = ds;
      __syncthreads();
      for (int ii = part_of; ii < kThreads && c0 + ii < end; ii += kThreads / D) {
        const size_t at = (head0 + c0 + ii) * D + d;
        acc_v = fmaf(wp[ii], __bfloat162float(dO[at]), acc_v);
        acc_k = fmaf(wds[ii], __bfloat162float(Q[at]), acc_k);
      }
      __syncthreads();
    }
  }
  const size_t at = (size_t(blockIdx.x) * gridDim.y + blockIdx.y) * D;
  write_row_sum<D>(acc_k, parts, part_dk + at, 1.f);
  write_row_sum<D>(acc_v, parts, part_dv + at, 1.f);
}

__device__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ float as_float(float v) { return v; }

// One block: the sample is small (n * width <= 64 * 128).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    compare_rows_kernel(const T* out, const uint32_t* rows, int n, int width, const float* expected, float rtol,
                        float atol, TimedSlot* slot) {
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
    if (!isfinite(o)) {
      ++nonfinite;
      continue;
    }
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

namespace {

// Chunks of at least 512 keys, at most 32 per row: 32 sampled rows of S = 8192 make 512 blocks.
Chunks chunks_of(int S) {
  const int count = std::max(1, std::min(32, (S + 511) / 512));
  return {count, (S + count - 1) / count};
}

}  // namespace

size_t row_scratch_floats(const Dims& d, int n) { return 2 * size_t(n) * chunks_of(d.S).count * (d.D + 1); }

void expected_forward_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           const uint32_t* rows, int n, float* o, float* lse, float* scratch, cudaStream_t s) {
  const Chunks c = chunks_of(d.S);
  float *part_o = scratch, *part_lse = scratch + size_t(n) * c.count * d.D;
  const dim3 grid(n, c.count);
  if (d.D == 64)
    forward_rows_kernel<64>
        <<<grid, kThreads, 0, s>>>(Q, K, V, rows, d.S, d.group(), d.causal, d.scale(), c, part_o, part_lse);
  else
    forward_rows_kernel<128>
        <<<grid, kThreads, 0, s>>>(Q, K, V, rows, d.S, d.group(), d.causal, d.scale(), c, part_o, part_lse);
  combine_forward_kernel<<<n, d.D, 0, s>>>(part_o, part_lse, c.count, d.D, o, lse);
  PTXBENCH_CUDA(cudaGetLastError());
}

void expected_dq_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                      float* dq, float* scratch, cudaStream_t s) {
  const Chunks c = chunks_of(d.S);
  const dim3 grid(n, c.count);
  if (d.D == 64)
    dq_rows_kernel<64>
        <<<grid, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), c, scratch);
  else
    dq_rows_kernel<128>
        <<<grid, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(), c, scratch);
  sum_chunks_kernel<<<n, d.D, 0, s>>>(scratch, c.count, d.D, d.scale(), dq);
  PTXBENCH_CUDA(cudaGetLastError());
}

void expected_dkdv_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                        float* dk, float* dv, float* scratch, cudaStream_t s) {
  const Chunks c = chunks_of(d.S);
  float *part_dk = scratch, *part_dv = scratch + size_t(n) * c.count * d.D;
  const dim3 grid(n, c.count);
  if (d.D == 64)
    dkdv_rows_kernel<64><<<grid, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(),
                                                   c, part_dk, part_dv);
  else
    dkdv_rows_kernel<128><<<grid, kThreads, 0, s>>>(Q, K, V, dO, LSE, Delta, rows, d.S, d.group(), d.causal, d.scale(),
                                                    c, part_dk, part_dv);
  sum_chunks_kernel<<<n, d.D, 0, s>>>(part_dk, c.count, d.D, d.scale(), dk);
  sum_chunks_kernel<<<n, d.D, 0, s>>>(part_dv, c.count, d.D, 1.f, dv);
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
void count_nonfinite(const __nv_bfloat16* out, size_t n, TimedSlot* slot, cudaStream_t s) {
  nonfinite_impl(out, n, slot, s);
}
void count_nonfinite(const float* out, size_t n, TimedSlot* slot, cudaStream_t s) { nonfinite_impl(out, n, slot, s); }

}  // namespace ptxbench::attention

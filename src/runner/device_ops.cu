#include "runner/device_ops.h"

#include <cmath>
#include <cstdio>

#include "runner/calibration_kernel.cuh"

namespace ptxbench {
namespace {

__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ inline float uniform01(uint64_t seed, size_t i) {
  return static_cast<float>(mix64(seed ^ mix64(i + 0x9e3779b97f4a7c15ull)) >> 40) * (1.0f / 16777216.0f);
}

__global__ void fill_bf16_kernel(__nv_bfloat16* p, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16(lo + (hi - lo) * uniform01(seed, i));
}
__global__ void fill_f32_kernel(float* p, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = lo + (hi - lo) * uniform01(seed, i);
}

__global__ void fingerprint_kernel(const uint32_t* p, size_t words, unsigned long long* out) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    acc += mix64((uint64_t(p[i]) << 32) ^ i);
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

__global__ void diff_words_kernel(const uint32_t* a, const uint32_t* b, size_t words, unsigned long long* out) {
  unsigned long long n = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    n += a[i] != b[i];
  if (n) atomicAdd(out, n);
}

__device__ inline float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_f32(float v) { return v; }

__global__ void sum_sq_kernel(const float* ref, size_t n, double* out) {
  double acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    acc += double(ref[i]) * ref[i];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

__device__ inline void atomic_max_double(double* addr, double v) {
  auto* a = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *a;
  while (__longlong_as_double(old) < v) {
    unsigned long long prev = atomicCAS(a, old, __double_as_longlong(v));
    if (prev == old) break;
    old = prev;
  }
}

struct DeviceStats {
  unsigned long long nonfinite, mismatches;
  double sum_sq_err, max_abs_err;
  unsigned long long worst_key;  // (ratio bits << 32) | index; ratio >= 0, so its bits order like the value
  unsigned long long first_nonfinite;
};

template <typename T>
__global__ void compare_kernel(const T* out, const float* ref, size_t n, float rtol, float abs_tol, DeviceStats* st) {
  unsigned long long nonfinite = 0, mism = 0;
  double sq = 0, maxabs = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float o = to_f32(out[i]), r = ref[i];
    if (!isfinite(o)) {
      ++nonfinite;
      atomicMin(&st->first_nonfinite, (unsigned long long)i);
      continue;
    }
    float err = fabsf(o - r);
    float tol = abs_tol + rtol * fabsf(r);
    if (err > tol) ++mism;
    sq += double(err) * err;
    maxabs = fmax(maxabs, double(err));
    float ratio = err / fmaxf(tol, 1e-30f);
    unsigned long long key = (static_cast<unsigned long long>(__float_as_uint(ratio)) << 32) | (i & 0xffffffffull);
    if (key > st->worst_key) atomicMax(&st->worst_key, key);
  }
  if (nonfinite) atomicAdd(&st->nonfinite, nonfinite);
  if (mism) atomicAdd(&st->mismatches, mism);
  atomicAdd(&st->sum_sq_err, sq);
  atomic_max_double(&st->max_abs_err, maxabs);
}

template <typename T>
ErrorStats compare_impl(const T* out, const float* ref, size_t n, double rtol, double atol, cudaStream_t s) {
  DeviceBuffer<double> sumsq(1);
  DeviceBuffer<DeviceStats> st(1);
  PTXBENCH_CUDA(cudaMemsetAsync(sumsq.get(), 0, sizeof(double), s));
  DeviceStats init{};
  init.first_nonfinite = ~0ull;
  PTXBENCH_CUDA(cudaMemcpyAsync(st.get(), &init, sizeof init, cudaMemcpyHostToDevice, s));
  const int blocks = 132 * 8, threads = 256;
  sum_sq_kernel<<<blocks, threads, 0, s>>>(ref, n, sumsq.get());
  PTXBENCH_CUDA(cudaGetLastError());
  double sum_sq_ref = 0;
  PTXBENCH_CUDA(cudaMemcpyAsync(&sum_sq_ref, sumsq.get(), sizeof(double), cudaMemcpyDeviceToHost, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  const double rms = n ? std::sqrt(sum_sq_ref / double(n)) : 0.0;
  compare_kernel<T><<<blocks, threads, 0, s>>>(out, ref, n, float(rtol), float(atol * rms), st.get());
  PTXBENCH_CUDA(cudaGetLastError());
  DeviceStats h{};
  PTXBENCH_CUDA(cudaMemcpyAsync(&h, st.get(), sizeof h, cudaMemcpyDeviceToHost, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  ErrorStats e;
  e.count = n;
  e.nonfinite = h.nonfinite;
  e.mismatches = h.mismatches;
  e.sum_sq_err = h.sum_sq_err;
  e.sum_sq_ref = sum_sq_ref;
  e.max_abs_err = h.max_abs_err;
  e.first_nonfinite = h.first_nonfinite;
  e.worst_ratio = __builtin_bit_cast(float, static_cast<uint32_t>(h.worst_key >> 32));
  e.worst = h.worst_key & 0xffffffffull;  // outputs here stay below 2^32 elements
  if (n && e.worst < n) {
    T o{};
    float r = 0;
    PTXBENCH_CUDA(cudaMemcpy(&o, out + e.worst, sizeof(T), cudaMemcpyDeviceToHost));
    PTXBENCH_CUDA(cudaMemcpy(&r, ref + e.worst, sizeof(float), cudaMemcpyDeviceToHost));
    if constexpr (std::is_same_v<T, float>) e.worst_out = o;
    else e.worst_out = __bfloat162float(o);
    e.worst_ref = r;
  }
  return e;
}

__global__ void gate_wait_kernel(volatile unsigned* flags, unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flags[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(1000);
  }
}
__global__ void gate_release_kernel(volatile unsigned* flags) {
  __threadfence_system();
  flags[0] = 1;
}

}  // namespace

void fill_uniform_bf16(__nv_bfloat16* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s) {
  fill_bf16_kernel<<<132 * 8, 256, 0, s>>>(p, n, seed, lo, hi);
  PTXBENCH_CUDA(cudaGetLastError());
}
void fill_uniform_f32(float* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s) {
  fill_f32_kernel<<<132 * 8, 256, 0, s>>>(p, n, seed, lo, hi);
  PTXBENCH_CUDA(cudaGetLastError());
}

void fingerprint(const void* p, size_t bytes, unsigned long long* out, cudaStream_t s) {
  PTXBENCH_CUDA(cudaMemsetAsync(out, 0, sizeof(unsigned long long), s));
  fingerprint_kernel<<<132 * 4, 256, 0, s>>>(static_cast<const uint32_t*>(p), bytes / 4, out);
  PTXBENCH_CUDA(cudaGetLastError());
}

unsigned long long count_differing_words(const void* a, const void* b, size_t bytes, cudaStream_t s) {
  DeviceBuffer<unsigned long long> d(1);
  PTXBENCH_CUDA(cudaMemsetAsync(d.get(), 0, sizeof(unsigned long long), s));
  diff_words_kernel<<<132 * 4, 256, 0, s>>>(static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b), bytes / 4,
                                            d.get());
  PTXBENCH_CUDA(cudaGetLastError());
  unsigned long long h = 0;
  PTXBENCH_CUDA(cudaMemcpyAsync(&h, d.get(), sizeof h, cudaMemcpyDeviceToHost, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  return h;
}

ErrorStats compare_bf16(const __nv_bfloat16* out, const float* ref, size_t n, double rtol, double atol,
                        cudaStream_t s) {
  return compare_impl(out, ref, n, rtol, atol, s);
}
ErrorStats compare_f32(const float* out, const float* ref, size_t n, double rtol, double atol, cudaStream_t s) {
  return compare_impl(out, ref, n, rtol, atol, s);
}

OutputCheck judge_output(const std::string& name, const ErrorStats& e, double rtol, double atol, double max_rel_l2,
                         long long cols) {
  OutputCheck c;
  const double rel_l2 = e.sum_sq_ref > 0 ? std::sqrt(e.sum_sq_err / e.sum_sq_ref) : (e.sum_sq_err > 0 ? INFINITY : 0);
  auto where = [&](unsigned long long i) {
    return cols > 0 ? json{{"index", i}, {"row", i / cols}, {"col", i % cols}} : json{{"index", i}};
  };
  c.detail = {{"output", name},
              {"elements", e.count},
              {"nonfinite", e.nonfinite},
              {"mismatches", e.mismatches},
              {"max_abs_err", e.max_abs_err},
              {"rel_l2_err", rel_l2},
              {"worst_err_over_tol", e.worst_ratio},
              {"tolerance", {{"rtol", rtol}, {"atol_x_rms", atol}, {"max_rel_l2", max_rel_l2}}}};
  if (e.count)
    c.detail["worst"] = where(e.worst), c.detail["worst"]["got"] = e.worst_out,
    c.detail["worst"]["expected"] = e.worst_ref;
  char buf[320];
  if (e.nonfinite) {
    auto w = where(e.first_nonfinite);
    std::snprintf(buf, sizeof buf, "%s: %llu of %llu elements are NaN/Inf (first at %s)", name.c_str(), e.nonfinite,
                  e.count, w.dump().c_str());
    c.summary = buf;
    return c;
  }
  if (e.mismatches || rel_l2 > max_rel_l2) {
    auto w = where(e.worst);
    std::snprintf(buf, sizeof buf,
                  "%s: %llu of %llu elements out of tolerance; worst at %s: got %.6g, expected %.6g (%.3gx the "
                  "tolerance); max abs err %.4g, rel L2 err %.3g (limit %.3g)",
                  name.c_str(), e.mismatches, e.count, w.dump().c_str(), e.worst_out, e.worst_ref, e.worst_ratio,
                  e.max_abs_err, rel_l2, max_rel_l2);
    c.summary = buf;
    return c;
  }
  c.passed = true;
  std::snprintf(buf, sizeof buf, "%s: max abs err %.4g, rel L2 err %.3g", name.c_str(), e.max_abs_err, rel_l2);
  c.summary = buf;
  return c;
}

double health_kernel_ms(int sm_count, cudaStream_t s) {
  DeviceBuffer<float> sink(1);
  const double ms = time_calibration_kernel(sm_count, sink.get(), s);
  PTXBENCH_CUDA(cudaGetLastError());
  return ms > 0 ? ms : 0;  // 0: unknown
}

L2Flusher::L2Flusher() {
  int dev = 0, l2 = 0;
  PTXBENCH_CUDA(cudaGetDevice(&dev));
  PTXBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  buf_ = DeviceBuffer<char>(size_t(l2 > 0 ? l2 : 64 << 20) * 2);
}
void L2Flusher::flush(cudaStream_t s) { PTXBENCH_CUDA(cudaMemsetAsync(buf_.get(), 0, buf_.bytes(), s)); }

StreamGate::StreamGate() : flags_(2) {
  // Launch both kernels once, already released, so neither is lazily loaded later: loading a
  // kernel while the gate holds the legacy stream would wait for the gate.
  unsigned released[2] = {1, 0};
  PTXBENCH_CUDA(cudaMemcpy(flags_.get(), released, sizeof released, cudaMemcpyHostToDevice));
  gate_wait_kernel<<<1, 1>>>(flags_.get(), 0);
  gate_release_kernel<<<1, 1>>>(flags_.get());
  PTXBENCH_CUDA(cudaGetLastError());
  PTXBENCH_CUDA(cudaDeviceSynchronize());
}

void StreamGate::close(unsigned timeout_ms) {
  PTXBENCH_CUDA(cudaMemset(flags_.get(), 0, 2 * sizeof(unsigned)));
  gate_wait_kernel<<<1, 1, 0, cudaStreamLegacy>>>(flags_.get(), timeout_ms * 1000000ull);
  PTXBENCH_CUDA(cudaGetLastError());
}
void StreamGate::release(cudaStream_t s) {
  gate_release_kernel<<<1, 1, 0, s>>>(flags_.get());
  PTXBENCH_CUDA(cudaGetLastError());
}
bool StreamGate::expired_before_release() {
  unsigned h[2] = {0, 0};
  PTXBENCH_CUDA(cudaMemcpy(h, flags_.get(), sizeof h, cudaMemcpyDeviceToHost));
  return h[1] != 0;
}

}  // namespace ptxbench

// Harness-side device operations shared by every workload: random inputs, fingerprints, the
// element-wise comparison against a reference, the L2 flush, and the stream-discipline gate.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/json.h"
#include "runner/detail/device_buffer.h"

namespace ptxbench {

// Uniform values in [lo, hi) rounded to bf16, a pure function of (seed, index).
void fill_uniform_bf16(__nv_bfloat16* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s);
void fill_uniform_f32(float* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s);

// Order-dependent 64-bit fingerprint of `bytes` (a multiple of 4) written to *out (device).
void fingerprint(const void* p, size_t bytes, unsigned long long* out, cudaStream_t s);

// Number of 32-bit words that differ between a and b (bytes a multiple of 4). Synchronizes `s`.
unsigned long long count_differing_words(const void* a, const void* b, size_t bytes, cudaStream_t s);

struct ErrorStats {
  unsigned long long count = 0;
  unsigned long long nonfinite = 0;   // NaN or Inf in the output (never pass)
  unsigned long long mismatches = 0;  // elements outside atol*rms + rtol*|ref|
  double sum_sq_err = 0, sum_sq_ref = 0;
  double max_abs_err = 0;
  unsigned long long worst = 0;  // index of the element with the worst error/tolerance ratio
  float worst_ratio = 0;
  unsigned long long first_nonfinite = ~0ull;
  float worst_out = 0, worst_ref = 0;
};

// Compares out[i] (bf16 or fp32) with ref[i] (fp32): |out-ref| <= atol*rms(ref) + rtol*|ref|.
ErrorStats compare_bf16(const __nv_bfloat16* out, const float* ref, size_t n, double rtol, double atol, cudaStream_t s);
ErrorStats compare_f32(const float* out, const float* ref, size_t n, double rtol, double atol, cudaStream_t s);

// Per-output verdict and a JSON summary (row/col of the worst element for 2-D outputs).
struct OutputCheck {
  bool passed = false;
  std::string summary;
  json detail;
};
OutputCheck judge_output(const std::string& name, const ErrorStats& e, double rtol, double atol, double max_rel_l2,
                         long long cols);

// The fixed health kernel (runner/calibration_kernel.cuh, the service's calibration kernel) timed
// on `s`: the median of 7 runs, in ms (0: could not be timed). Throws CudaError on a CUDA error.
double health_kernel_ms(int sm_count, cudaStream_t s);

// Writes over a buffer twice the L2 size so the next sample starts with a cold cache.
class L2Flusher {
 public:
  L2Flusher();
  void flush(cudaStream_t s);

 private:
  DeviceBuffer<char> buf_;
};

// Holds back the legacy default stream (and so every blocking stream) while a candidate call is
// made on the harness's non-blocking stream, so output produced anywhere but that stream shows up
// as missing in a snapshot taken before release. Expires on its own after `timeout_ms`.
class StreamGate {
 public:
  StreamGate();
  void close(unsigned timeout_ms);  // launches the spinning gate on cudaStreamLegacy
  void release(cudaStream_t s);     // enqueued on the harness stream after the snapshot
  bool expired_before_release();    // after a device sync: the gate timed out by itself

 private:
  DeviceBuffer<unsigned> flags_;  // [0] release flag, [1] expired flag
};

}  // namespace ptxbench

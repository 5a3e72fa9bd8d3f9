// The fixed health kernel: a chain of FMAs over every SM (8 blocks of 256 threads per SM, 2^14
// iterations), its median time over 7 runs after 2 warm-ups. Code of the harness's alone, with no
// input from anyone: the service's health probe (service/health/probe_main.cu) times it between
// jobs for thermal screening, and the worker times it before the candidate loads and again when
// the library is still slower alone after a candidate and its cool-downs (runner/baseline_drift.h:
// a GPU that runs it much slower than before the load is faulty, whatever the candidate did).
// Included by one translation unit per executable (internal linkage).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace ptxbench {

static __global__ void calibration_kernel(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, b, c);
    b = fmaf(b, c, a * 1e-7f);
  }
  if (a == 12345.0f) out[0] = b;  // keeps the chain; never true in practice
}

// The median of 7 timed runs on `stream` after 2 warm-ups, in ms; negative when CUDA failed (its
// error left for cudaGetLastError). `sink`: one float of device memory.
static inline double time_calibration_kernel(int sm_count, float* sink, cudaStream_t stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaEventCreate(&start) != cudaSuccess) return -1;
  if (cudaEventCreate(&stop) != cudaSuccess) {
    cudaEventDestroy(start);
    return -1;
  }
  std::vector<float> times;
  for (int rep = 0; rep < 9; ++rep) {
    cudaEventRecord(start, stream);
    calibration_kernel<<<sm_count * 8, 256, 0, stream>>>(sink, 1 << 14);
    cudaEventRecord(stop, stream);
    if (cudaEventSynchronize(stop) != cudaSuccess) break;
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (rep >= 2) times.push_back(ms);  // two warm-ups
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (times.size() != 7) return -1;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace ptxbench

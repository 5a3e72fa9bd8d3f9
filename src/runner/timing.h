// Timing of one shape: candidate and baseline interleaved in one process, CUDA events on the
// harness stream, fresh inputs and a cold L2 before every sample, every timed output checked
// (randomized projection + input fingerprints), NVML clocks around the samples, and the hardware
// floor below which a time is impossible.
#pragma once
#include "core/json.h"
#include "runner/worker_context.h"

namespace ptxbench {

struct TimingConfig {
  int warmup_calls = 3;
  int min_samples = 30;
  int max_samples = 200;
  double target_median_error = 0.002;  // stop once the median's relative standard error is this small, both sides
  double max_seconds = 4.0;         // per shape, wall clock, both sides
  bool with_baseline = true;
  static TimingConfig from_json(const json& j);
};

// Returns the shape's timing record; ends the worker on a candidate failure.
json time_shape(WorkerContext& ctx, const json& shape, double flops, uint64_t seed, const TimingConfig& cfg);

struct SampleStats {
  double median = 0, p10 = 0, p90 = 0, min = 0;
  double spread = 0;        // (p90 - p10) / median
  double median_error = 0;  // relative standard error of the median, from the MAD
  int n = 0;
};
SampleStats summarize(std::vector<double> v);

}  // namespace ptxbench

// Timing of one shape: candidate and baseline interleaved in one process, CUDA events on the
// harness stream, fresh inputs and a cold L2 before every sample, every timed output checked
// after the call (inputs generated again, then a secret drawn for the randomized check), NVML
// clocks around the samples, and the hardware floor below which a time is impossible. The
// baseline is also timed alone before the candidate is loaded (and again after, when the two
// disagree), so a candidate that slows the library down is caught.
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
  int clean_min_samples = 20;       // the baseline alone (before the candidate loads)
  double clean_max_seconds = 1.5;
  static TimingConfig from_json(const json& j);
};

// Returns the shape's timing record; ends the worker on a candidate failure. With `count_timed`
// (and a counter), one secretly chosen candidate sample has its instructions counted.
json time_shape(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg, bool count_timed);

// Executed instructions as the target_counts events carry them: per kernel, [pc offset, count].
json target_counts_json(const std::vector<integrity::ExecutedInstruction>& counts);

// The baseline's warm-up calls alone on `shape`: its plans built and every library it loads lazily
// (cuDNN's engine libraries, runtime-compiled kernels) loaded while no candidate filter is on.
void warm_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg);

// The baseline alone on `shape` (no candidate call in between).
CleanBaseline time_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg);

struct SampleStats {
  double median = 0, p10 = 0, p90 = 0, min = 0;
  double spread = 0;        // (p90 - p10) / median
  double median_error = 0;  // relative standard error of the median, from the MAD
  int n = 0;
};
SampleStats summarize(std::vector<double> v);

}  // namespace ptxbench

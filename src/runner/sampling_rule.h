// When a shape's timed samples may stop, and the statistics they are judged by. No CUDA here: the
// rule is unit-tested on the CPU (tests/unit/runner/test_sampling_rule.cpp); runner/timing.cpp takes the
// samples.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct TimingConfig {
  int warmup_calls = 3;
  int min_samples = 30;
  int max_samples = 200;
  double target_median_error = 0.002;  // stop once the median's relative standard error is this small, both sides
  double max_seconds = 4.0;            // per shape, wall clock, both sides
  // A slow kernel reaches the same precision in fewer samples: once the candidate's timed calls add
  // up to slow_candidate_seconds, slow_min_samples stable samples suffice (the error bound is the same).
  int slow_min_samples = 8;
  double slow_candidate_seconds = 0.5;
  bool with_baseline = true;
  int clean_min_samples = 20;  // the baseline alone (before the candidate loads)
  double clean_max_seconds = 1.5;
  // Before the GPU is taken alone for the clean timings, the library runs once on every shape they
  // will time (its plans built, cuDNN's graphs): otherwise every shape after the first builds them
  // in the exclusive window.
  bool library_ahead = true;
  static TimingConfig from_json(const json& j);
};

struct SampleStats {
  double median = 0, p10 = 0, p90 = 0, min = 0;
  double spread = 0;        // (p90 - p10) / median
  double median_error = 0;  // relative standard error of the median, from the MAD
  int n = 0;
};
SampleStats summarize(std::vector<double> v);

// Where one shape's sampling stands after a batch.
struct SamplingProgress {
  SampleStats candidate, baseline;  // the timed samples (the counted one is no time)
  double candidate_seconds = 0;     // the candidate's timed calls, summed
  double elapsed_seconds = 0;       // wall clock since the first sample
  int slots = 0, capacity = 0;      // samples taken (both sides, the counted one too) / room for
  int candidate_calls = 0;          // candidate samples taken, the counted one among them
  int counted_sample = -1;          // the secretly counted candidate sample's index, -1: none
  bool with_baseline = true;
};

// Why sampling stops now, "" to go on: "stable" (both medians within target_median_error after
// enough samples), "max_samples", "max_seconds" or "capacity". The secretly counted sample is
// always taken before a stop (it is drawn among the first min_samples), except at capacity or
// past four times max_seconds: "max_seconds (the counted sample not reached)".
std::string sampling_stop(const SamplingProgress& p, const TimingConfig& cfg);

// The rule's own part of the record: what a stop needs.
json sampling_rule_json(const TimingConfig& cfg);

}  // namespace ptxbench

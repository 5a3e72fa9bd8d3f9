// The library's clean timings kept across evaluations (docs/library-timing-cache.md): what the
// worker matches a stored timing by, and the short check that re-validates it. No CUDA here: the
// rule is unit-tested on the CPU (tests/unit/runner/test_library_timing_check.cpp);
// runner/stages/clean_baseline_stage.cpp takes the samples.
#pragma once
#include <string>

#include "core/json.h"

namespace ptxbench {

// Defaults of the check (EvalOptions carries the sample count to the job).
inline constexpr int kLibraryCheckSamples = 5;
inline constexpr double kLibraryCheckMinTolerance = 0.005;  // 0.5%: below it, no GPU's clean timings repeat
inline constexpr double kLibraryCheckMaxTolerance = 0.02;   // 2%: a stored timing is never trusted further off

struct StoredCleanTiming {
  double median_ms = 0;
  double median_error = 0;  // relative standard error of the stored median (sampling_rule.h: from the MAD)
  int samples = 0;
  // The median of the full timing's first `lead_samples` samples: what a check of that many samples,
  // taken the same way right after the same warm-up, is compared with (0: not stored, the median is).
  // A library that runs its first samples faster than its steady state (a power-hungry kernel before
  // the GPU's power limit holds its clocks down: cuDNN's backward on the H100, 4% on one shape) is
  // then checked like for like rather than failing every check.
  double lead_median_ms = 0;
  int lead_samples = 0;
};

struct LibraryCheckVerdict {
  bool accepted = false;
  double deviation = 0;       // check median / what it is compared with - 1
  double tolerance = 0;       // |deviation| must not exceed it
  bool against_lead = false;  // compared with the stored lead median (else the stored median)
};

// The check's tolerance: three standard errors of the difference between the stored median and the
// median of `check_samples` new samples, both from the stored samples' noise (the per-sample spread
// the stored median_error implies: e_check = e_stored * sqrt(stored_samples / check_samples)), so
// 3 * e_stored * sqrt(1 + stored_samples / check_samples), held within [0.5%, 2%].
double library_check_tolerance(const StoredCleanTiming& stored, int check_samples);

// Against a stored lead median of as many samples as the check: both medians of `check_samples`
// samples, 3 * e_stored * sqrt(2 * stored_samples / check_samples), within the same bounds.
double library_lead_check_tolerance(const StoredCleanTiming& stored, int check_samples);

// Whether a check of `check_samples` samples with median `check_median_ms` re-validates `stored`:
// against its lead median when it has one of `check_samples` samples, else against its median.
LibraryCheckVerdict judge_library_check(const StoredCleanTiming& stored, double check_median_ms, int check_samples);

// The plan the library runs for the shape labelled `label`, as its baseline_info reports it
// (runner/workload.h): the fields that name the algorithm, engine or epilogue, and this shape's
// entries of `kernels`, `plans` and `shapes` (those whose name holds every dim=value of `label`, in
// any order: the workloads name shapes in their own order, cuDNN's "fwd <dims>"), without the
// seconds a plan took to build. Deterministic: the same library choosing the same plan gives the
// same JSON.
json library_plan_identity(const json& baseline_info, const std::string& label);

// What a stored timing is matched by, as the worker sees it: {gpu_uuid, driver, clocks} of its
// hello's timing_environment and {library, library_version, plan} of the shape.
json library_timing_key(const json& timing_environment, const json& baseline_info, const std::string& label);

// The index in `rows` (each a stored timing with the key's fields) of the one whose key equals
// `key`, -1 when none, and then why in *why (the first field that differs).
int matching_stored_timing(const json& rows, const json& key, std::string* why);

}  // namespace ptxbench

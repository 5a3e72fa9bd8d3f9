// What produced a result, in the fields every report prints: harness version and commit, nvcc,
// driver, GPU, seed policy. Read from a run's provenance (the agent's) or an evaluation record's
// environment; what was not recorded reads "not recorded", never a guess.
#pragma once
#include <string>

#include "core/json.h"

namespace ptxbench::report {

inline constexpr const char* kNotRecorded = "not recorded";

struct Provenance {
  std::string harness_version = kNotRecorded, harness_commit = kNotRecorded;
  std::string harness_dirty = kNotRecorded;  // "true", "false" or not recorded
  std::string nvcc = kNotRecorded, driver = kNotRecorded, gpu = kNotRecorded, seed_policy = kNotRecorded;
};

// A run's provenance object: {harness: {version, commit, dirty}, nvcc, gpu: {name, gpu_stages, hello: {cuda_driver}},
// seed_policy, nvml_driver} (the last two copied by the loaders from the run's evaluation records).
Provenance from_run_provenance(const json& p);
// An evaluation record's environment: {harness, nvcc_version, gpu: hello, gpu_state_at_start: {driver}, seed_policy}.
Provenance from_record_environment(const json& environment, const std::string& record_gpu);

// 13000 -> "13.0" (cudaDriverGetVersion's encoding).
std::string cuda_version_text(long long v);

}  // namespace ptxbench::report

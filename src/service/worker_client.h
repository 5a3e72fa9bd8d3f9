// Starts ptxbench-worker for one job (optionally under ncu or compute-sanitizer), with the job in
// a private file and the results on a private pipe, and collects what it reported.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/subprocess.h"

namespace ptxbench {

struct WorkerRun {
  ProcessResult process;
  std::vector<json> events;
  std::optional<json> fatal;  // {"verdict", "message"} when the worker reported a fatal error
  bool done = false;          // the worker finished its job and said so
  bool malformed = false;     // a line on the result channel was not JSON

  std::optional<json> stage(const std::string& name) const;
  std::vector<json> of_type(const std::string& type) const;
  std::optional<json> hello() const;
  std::string last_progress() const;  // "correctness on M=128 N=128 K=64", or empty
  std::string output_tail(size_t max_bytes = 4000) const;  // the candidate's stdout/stderr, trimmed
};

inline constexpr int kResultFd = 3;

WorkerRun run_worker(const std::filesystem::path& worker, const json& job, const std::filesystem::path& job_dir,
                     const std::vector<std::string>& wrapper, std::chrono::seconds timeout,
                     const std::vector<std::string>& extra_args = {});

}  // namespace ptxbench

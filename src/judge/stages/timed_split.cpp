// Splits the worker's eval job for GPU sharing into the part that times nothing and the timed part.
#include "judge/stages/timed_split.h"

namespace ptxbench {

WorkerJob shared_part_of(const WorkerJob& eval_job) {
  WorkerJob j = eval_job;
  j.timing.reset();
  j.timing_config.reset();
  return j;
}

WorkerJob timed_part_of(const WorkerJob& eval_job, bool counted_sample) {
  WorkerJob j = eval_job;
  j.correctness.clear();
  j.stream_discipline = false;
  j.counted_calls = false;
  if (!counted_sample) j.count.reset();
  return j;
}

std::vector<CountedKernels> counted_kernels_of(const WorkerRun& run) {
  std::vector<CountedKernels> out;
  for (const auto& ev : run.of_type("target_counts")) {
    if (ev.value("when", "") != "checked call" || !ev.contains("shape")) continue;
    CountedKernels k{ev.at("shape"), {}};
    for (const auto& fn : ev.value("functions", json::array()))
      if (fn.is_object() && fn.contains("function") && fn.at("function").is_string())
        k.kernels.push_back(fn.at("function").get<std::string>());
    out.push_back(std::move(k));
  }
  return out;
}

bool shared_part_passed(const WorkerRun& run) {
  if (!run.done) return false;
  for (const char* name : {"integrity", "stream_discipline", "correctness", "target_run"}) {
    auto s = run.stage(name);
    if (!s) {
      if (std::string(name) == "correctness") return false;
      continue;
    }
    if (s->value("status", "") == "ok") continue;
    // A counting tool failure is not the candidate's: timing still runs (the record says unknown).
    if (std::string(name) == "target_run" && s->value("tool_failure", false)) continue;
    return false;
  }
  return true;
}

}  // namespace ptxbench

#include "judge/stages/timed_split.h"

namespace ptxbench {

json shared_part_of(const json& eval_job) {
  json j = eval_job;
  j.erase("timing");
  j.erase("timing_config");
  return j;
}

json timed_part_of(const json& eval_job, bool counted_sample) {
  json j = eval_job;
  j["correctness"] = json::array();
  j["stream_discipline"] = false;
  j["counted_calls"] = false;
  if (!counted_sample) j.erase("count");
  return j;
}

json counted_kernels_of(const WorkerRun& run) {
  json out = json::array();
  for (const auto& ev : run.of_type("target_counts")) {
    if (ev.value("when", "") != "checked call" || !ev.contains("shape")) continue;
    json kernels = json::array();
    for (const auto& fn : ev.value("functions", json::array()))
      if (fn.is_object() && fn.contains("function")) kernels.push_back(fn.at("function"));
    out.push_back({{"shape", ev.at("shape")}, {"kernels", kernels}});
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

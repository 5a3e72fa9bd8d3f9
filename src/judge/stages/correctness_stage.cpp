// Correctness on every hidden, drawn and benchmark shape and seed, as the eval worker's checks
// say: the stage's status follows from its checks, not from the worker's word for it.
#include <algorithm>

#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"

namespace ptxbench {

StageStop record_correctness(GpuStageRun& c) {
  EvaluationRecord& r = c.record;
  const WorkerRun& run = *c.eval_run;
  const bool disciplined = r.stage("stream_discipline")->status == StageStatus::ok;
  json checks = json::array();
  for (const auto& check : run.of_type("check")) checks.push_back(check);
  if (auto ev = run.stage("correctness")) {
    auto s = timed_by(from_worker_stage(*ev), run);
    s.detail["checks"] = checks;
    const auto wrong =
        std::find_if(checks.begin(), checks.end(), [](const json& check) { return !check.value("passed", false); });
    if (s.status == StageStatus::ok && (checks.empty() || wrong != checks.end())) {
      s.status = StageStatus::failed;
      s.detail["verdict"] = checks.empty() ? "infra_error" : "incorrect";
      s.message = checks.empty() ? "the worker reported correctness without any check"
                                 : "a check failed: " + wrong->value("summary", "");
    }
    r.add_stage(s);
  } else if (disciplined && !c.runtime_failed && !c.audit_failed()) {
    auto s = timed_by(abnormal_end("correctness", run), run);
    s.detail["checks"] = checks;
    r.add_stage(s);
    c.runtime_failed = true;
  } else {
    r.add_stage(skipped_stage("correctness", c.why_not_reached()));
  }
  return {};
}

}  // namespace ptxbench

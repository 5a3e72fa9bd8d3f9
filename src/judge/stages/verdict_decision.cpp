// Decides the verdict from the stages recorded so far: the first failed stage's.
#include "judge/stages/verdict_decision.h"

namespace ptxbench {

Verdict decide_verdict(const EvaluationRecord& r, std::string* reason) {
  for (const auto& s : r.stages) {
    if (s.status != StageStatus::failed) continue;
    auto v = verdict_from_string(s.detail.value("verdict", "infra_error"));
    if (reason) *reason = s.name + ": " + s.message;
    return v.value_or(Verdict::infra_error);
  }
  for (const char* gpu_stage : {"correctness"}) {
    const auto* s = r.stage(gpu_stage);
    if (!s || s->status != StageStatus::ok) {
      if (reason) *reason = s ? std::string(gpu_stage) + " skipped: " + s->message : "the GPU stages did not run";
      return Verdict::not_run;
    }
  }
  if (reason) *reason = "correct on every shape and seed";
  return Verdict::correct;
}

}  // namespace ptxbench

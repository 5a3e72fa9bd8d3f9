// The sanitizer order's decisions: which sanitizers still run after the eval worker, and the verdict
// a sanitizer failure gives beside the smoke call's outcome.
#include "judge/stages/sanitizer_order.h"

#include <csignal>

#include "judge/stages/timed_split.h"

namespace ptxbench {

std::string to_string(SanitizerOrder order) {
  switch (order) {
    case SanitizerOrder::first: return "first";
    case SanitizerOrder::after_correctness: return "after_correctness";
    case SanitizerOrder::only_if_correct: return "only_if_correct";
  }
  return "first";
}

std::optional<SanitizerOrder> sanitizer_order_from_string(const std::string& name) {
  for (auto o : {SanitizerOrder::first, SanitizerOrder::after_correctness, SanitizerOrder::only_if_correct})
    if (to_string(o) == name) return o;
  return std::nullopt;
}

EvalOutcome eval_outcome_of(const WorkerRun& run) {
  if (run.tampered) return EvalOutcome::failed;
  if (shared_part_passed(run)) return EvalOutcome::passed;
  if (run.process.timed_out) return EvalOutcome::hung;
  if (run.fatal) {
    if (run.fatal->value("verdict", "") == "infra_error") return EvalOutcome::harness_fault;
    // The worker's watchdog (runner/watchdog.cpp): a call that did not finish.
    if (run.fatal->value("message", "").rfind("timeout:", 0) == 0) return EvalOutcome::hung;
    return EvalOutcome::failed;
  }
  // Killed from outside, not by the harness's deadline: an infra error (worker_events.cpp's abnormal_end).
  if (!run.done && run.process.term_signal == SIGKILL) return EvalOutcome::harness_fault;
  return EvalOutcome::failed;
}

SanitizerPlan sanitizers_after_eval(SanitizerOrder order, EvalOutcome outcome) {
  switch (outcome) {
    case EvalOutcome::passed: return {{"memcheck", "racecheck", "synccheck"}, ""};
    case EvalOutcome::hung:
      return {{}, "not run: a call of the candidate did not finish, and under a sanitizer it would not either"};
    case EvalOutcome::harness_fault: return {{}, "not run: the eval worker met a harness fault (the job runs again)"};
    case EvalOutcome::failed: break;
  }
  if (order == SanitizerOrder::only_if_correct)
    return {{}, "not run: the candidate cannot be correct (the eval worker's stages failed first)"};
  return {{"memcheck"},
          "racecheck and synccheck not run: the candidate cannot be correct (the eval worker's stages failed first); "
          "memcheck ran so that a memory error keeps its verdict"};
}

StageResult as_in_the_old_order(const std::optional<StageResult>& smoke_failure, const StageResult& sanitizer_failure) {
  if (!smoke_failure) return sanitizer_failure;
  StageResult s = *smoke_failure;
  s.detail["sanitizers_found"] = sanitizer_failure.message;
  return s;
}

}  // namespace ptxbench

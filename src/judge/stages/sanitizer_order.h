// Which sanitizers a candidate's eval worker leaves to run (EvalOptions::sanitizer_order), and the
// verdict the sanitizers' failure gives once the smoke call said what it said. Pure, unit-tested;
// run by sanitize_stage.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/record.h"
#include "judge/evaluator.h"
#include "judge/worker_client.h"

namespace ptxbench {

std::string to_string(SanitizerOrder order);
// "first", "after_correctness", "only_if_correct"; nullopt for anything else.
std::optional<SanitizerOrder> sanitizer_order_from_string(const std::string& name);

// How the eval worker (its shared part, with a lane gate) ended, as far as the sanitizers care.
enum class EvalOutcome {
  passed,         // every stage of the shared part passed: the candidate can still be correct
  failed,         // it cannot be correct (wrong, forbidden, crashed)
  hung,           // a call did not finish (the watchdog or the deadline): a sanitizer would hang too
  harness_fault,  // not the candidate's doing (infra_error): the job runs again
};
EvalOutcome eval_outcome_of(const WorkerRun& eval_run);

struct SanitizerPlan {
  std::vector<std::string> checks;  // compute-sanitizer tools, in order; empty: none runs
  std::string not_run;              // why the others do not run ("" when all three do)
};
// After the eval worker (orders other than `first`, which runs all three before it).
SanitizerPlan sanitizers_after_eval(SanitizerOrder order, EvalOutcome outcome);

// The old order ran a smoke call before the sanitizers, and its failure decided: after a sanitizer
// failure the smoke call runs, and this gives the sanitize stage the old order would have
// recorded (the smoke's failure when it failed, else the sanitizer's).
StageResult as_in_the_old_order(const std::optional<StageResult>& smoke_failure, const StageResult& sanitizer_failure);

}  // namespace ptxbench

// The error class of a judged turn, from its stored evaluation alone (the verdict, the target flags,
// the speedup and the failed stage's structured fields), never from a pattern over free text.
// The classes refine the shared error-state taxonomy (core/error_state.h) the report's transitions
// use: compile_error, forbidden, runtime_error, sanitizer_error, incorrect, correct_no_target, and
// correct_slow (target-correct, but under the recipe's speedup). Each carries what the record says
// about the failure and a signature ("class/part/part") that balancing and repair notes key on:
//   compile_error   the first error diagnostic's tool and message template (quoted names -> "_", numbers -> N)
//   forbidden       the deciding stage and its rule (static: source/import/host_syscall; build: include;
//                   integrity: foreign_stream, hidden_module, ...; worker: sandbox_syscall, channel_tampered)
//   runtime_error   the stage and how it ended (cuda_error, crash, timeout, process_exit, ...)
//   sanitizer_error the tool (memcheck, racecheck, synccheck) and the first finding's template
//   incorrect       the stage, the first failing output, why (mismatch, nonfinite, modified_inputs,
//                   timed_check) and whether the shape was a hidden one
//   correct_no_target  the target groups that did not execute, or short_of_the_work when each ran but
//                   fell short of the problem's tensor-FLOP or TMA-byte share (the strict flag)
//   correct_slow    the speedup band
#pragma once
#include <optional>
#include <string>

#include "core/json.h"
#include "core/record.h"
#include "problems/problem_spec.h"

namespace ptxbench::fixit {

struct ErrorClass {
  std::string name;  // one of recipe.h's error_class_names()
  json detail = json::object();
  std::string signature;  // "incorrect/correctness/O/mismatch/listed"
};

struct ClassifyOptions {
  double slow_below = 0;  // target-correct under this geomean speedup is correct_slow (0: never)
};

// nullopt when the turn is no failure (target-correct and fast enough) or says nothing about the
// candidate (infra_error, not_run, or correct with the target counter failed).
std::optional<ErrorClass> classify(const EvaluationRecord& r, const ProblemSpec* problem, const ClassifyOptions& o);

// A message as a template: text in quotes or backticks -> "_", numbers -> N, spaces collapsed,
// at most 160 characters. Two diagnostics of one kind read the same.
std::string message_template(const std::string& message);

}  // namespace ptxbench::fixit

// The error-state taxonomy of a judged candidate, one for every consumer: the report's error
// transitions (metrics/transitions.h), the Fixit error classes (fixit_core/error_class.h) and feedback.
// A verdict names the state, except `correct`, which splits by whether every target instruction
// group executed: target_correct, correct_no_target, or correct_target_unknown (the counter failed
// on the harness's side). Fixit refines target_correct once more by speed (correct_slow).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/verdict.h"

namespace ptxbench {

inline constexpr const char* kTargetCorrect = "target_correct";
inline constexpr const char* kCorrectNoTarget = "correct_no_target";
inline constexpr const char* kCorrectTargetUnknown = "correct_target_unknown";

// "compile_error", ..., "incorrect", or one of the three correct states above. infra_error and
// not_run keep their names (they say nothing about the candidate).
std::string judged_state(Verdict v, const std::optional<bool>& target_executed);

// The judged failure states in display order: the verdicts that fail, then correct_no_target and
// correct_target_unknown, then target_correct.
const std::vector<std::string>& judged_state_order();

}  // namespace ptxbench

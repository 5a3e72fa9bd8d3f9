// The error-state taxonomy of a judged candidate shared by transitions, Fixit's classes and feedback.
#include "core/error_state.h"

namespace ptxbench {

std::string judged_state(Verdict v, const std::optional<bool>& target_executed) {
  if (v != Verdict::correct) return std::string(to_string(v));
  if (!target_executed) return kCorrectTargetUnknown;
  return *target_executed ? kTargetCorrect : kCorrectNoTarget;
}

const std::vector<std::string>& judged_state_order() {
  static const std::vector<std::string> order = {"compile_error",       "forbidden",   "runtime_error",
                                                 "sanitizer_error",     "incorrect",   kCorrectNoTarget,
                                                 kCorrectTargetUnknown, kTargetCorrect};
  return order;
}

}  // namespace ptxbench

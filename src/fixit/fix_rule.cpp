// Whether a judged attempt counts as the fix of an item, by the recipe's and the error class's rules.
#include "fixit/fix_rule.h"

#include <cstdio>

namespace ptxbench::fixit {

std::string why_not_a_fix(const EvaluationRecord& fix, const FixTarget& target, const FixRules& rules) {
  if (fix.verdict != Verdict::correct) {
    std::string why = "the fix is " + std::string(to_string(fix.verdict));
    return fix.reason.empty() ? why : why + ": " + fix.reason;
  }
  const bool needs_target =
      rules.require_target || target.error_class == "correct_no_target" || target.error_class == "correct_slow";
  if (needs_target && !fix.target_executed)
    return "the fix is correct, but whether its target instructions executed is unknown";
  if (needs_target && !*fix.target_executed)
    return "the fix is correct, but its target instructions did not do the problem's work (target_executed false: a "
           "target group did not run, or the timed calls fell short of the problem's allowlist bounds)";
  if (target.error_class == "correct_slow") {
    const double before = target.failing_speedup.value_or(0), wanted = before * (1 + rules.min_speedup_gain);
    char buf[160];
    if (!fix.speedup_geomean) return "the fix was not timed, so it cannot be shown faster";
    if (*fix.speedup_geomean < wanted) {
      std::snprintf(buf, sizeof buf, "the fix runs at %.3fx the library, not %.3fx (%.3fx + %.0f%%)",
                    *fix.speedup_geomean, wanted, before, rules.min_speedup_gain * 100);
      return buf;
    }
  }
  return "";
}

}  // namespace ptxbench::fixit

// What counts as a fix of an item, judged on the fix's own evaluation: correct, with the strict
// target flag (every target group ran and did the problem's share of the work: core/record.h)
// when the recipe or the class asks for it (correct_no_target always does), and for
// correct_slow, faster than the slow kernel by the recipe's margin. KernelGen items need a kernel
// that passes the same rule as a fix.
#pragma once
#include <optional>
#include <string>

#include "core/record.h"
#include "fixit/recipe.h"

namespace ptxbench::fixit {

struct FixTarget {
  std::string error_class;                // "" for a kernelgen item
  std::optional<double> failing_speedup;  // correct_slow: the slow kernel's geomean speedup
};

// "" when `fix` fixes it; else one line saying why not ("the fix is incorrect: wrong on ...").
std::string why_not_a_fix(const EvaluationRecord& fix, const FixTarget& target, const FixRules& rules);

}  // namespace ptxbench::fixit

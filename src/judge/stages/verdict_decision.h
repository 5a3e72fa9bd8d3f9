// The verdict from the stages recorded so far (pure; unit-tested): the first failed stage decides,
// by the verdict it carries in detail["verdict"]; with none failed, correct only when correctness ran.
#pragma once
#include <string>

#include "core/record.h"

namespace ptxbench {

Verdict decide_verdict(const EvaluationRecord& r, std::string* reason);

}  // namespace ptxbench

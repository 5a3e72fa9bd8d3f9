// What every record carries about how it was judged (reports print it): the tools found, the
// harness, the compiler's version and the seed policy.
#pragma once
#include "core/record.h"
#include "judge/evaluator.h"

namespace ptxbench {

void record_provenance(EvaluationRecord& r, const EvalOptions& o);

}  // namespace ptxbench

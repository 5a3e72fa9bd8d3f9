// Judges a candidate again after an infra_error on the sequential path, up to a bound.
#include "judge/infra_retry.h"

namespace ptxbench {

EvaluationRecord evaluate_with_infra_retries(const std::function<EvaluationRecord()>& evaluate, int max_attempts,
                                             const std::function<void(int, const std::string&)>& on_retry) {
  EvaluationRecord r = evaluate();
  json earlier = json::array();
  for (int attempt = 2; r.verdict == Verdict::infra_error && attempt <= max_attempts; ++attempt) {
    if (on_retry) on_retry(attempt, r.reason);
    earlier.push_back(r.reason);
    r = evaluate();
  }
  if (!earlier.empty()) r.environment["earlier_infra_errors"] = earlier;
  return r;
}

}  // namespace ptxbench

// An infra_error (a harness fault, a GPU whose speed drifted under a timing) is never the
// candidate's: the sequential path judges it again, as the service re-queues one, up to a bound.
#pragma once
#include <functional>
#include <string>

#include "core/record.h"

namespace ptxbench {

// Runs `evaluate` again while it returns infra_error, up to `max_attempts` runs in all (at least
// one). The earlier attempts' reasons are kept in the last record (environment
// "earlier_infra_errors"); `on_retry(next_attempt, reason)` is told before each new run.
EvaluationRecord evaluate_with_infra_retries(const std::function<EvaluationRecord()>& evaluate, int max_attempts,
                                             const std::function<void(int, const std::string&)>& on_retry = {});

}  // namespace ptxbench

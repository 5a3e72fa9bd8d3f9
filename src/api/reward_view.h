// The flat view of a judged candidate that an RL trainer reads (GET /v1/results/{key}, `reward`):
// the few fields a reward is computed from, beside the full evaluation record (core/record.h).
//   compiled            the build stage passed
//   verdict, correct    the record's verdict; correct == (verdict == "correct")
//   counts              false for infra_error and not_run: no verdict on the candidate (never reward it)
//   speedup_geomean     null unless timed; speedups: [{shape, speedup, median_ms, baseline_ms}]
//   target_executed, target_seen, target_static, tensor_flop_share, tma_byte_share (null: unknown)
//   forbidden           verdict == "forbidden"
//   error_class, error_signature   Fixit's class of the failure (fixit_core/error_class.h), or null
//   feedback            the text the agent's model gets for this record (agent/feedback.h)
//   stage_seconds       {stage name: seconds}; service_seconds: prepare (build + static) and gpu
#pragma once
#include "core/json.h"
#include "core/record.h"
#include "problems/problem_spec.h"

namespace ptxbench::api {

// `problem` may be null (feedback and error class then say less); `service_timings` is the
// stored result's "timings" object (prepare_seconds, gpu_seconds), or null.
json reward_view(const EvaluationRecord& record, const ProblemSpec* problem, const json& service_timings);

}  // namespace ptxbench::api

// The pipeline for one candidate, in the order of its description (pipeline.cpp): build -> static
// checks on the CPU (prepare), then on the GPU (judge) by EvalOptions::sanitizer_order: first, smoke
// -> sanitize -> eval worker [-> timed worker]; otherwise eval worker -> sanitize (what its outcome
// leaves: sanitizer_order.h) [-> timed worker]; then the eval worker's record: integrity -> stream
// discipline -> correctness -> target_run -> timing. The first stage that fails stops it: the
// stages after it are recorded as skipped, with the reason.
#pragma once
#include <string>
#include <vector>

#include "judge/stages/cpu_stages.h"
#include "judge/stages/gpu_stages.h"

namespace ptxbench {

// True when the candidate is ready for the GPU (built and passed the static checks).
bool run_cpu_stages(CpuStageRun& run);
void run_gpu_stages(GpuStageRun& run);
// The GPU units in the order they run under `order` (smoke, eval_worker, timed_worker,
// sanitize_after_eval, or the record stage a unit owns), for tests and the docs.
std::vector<std::string> gpu_stage_units(SanitizerOrder order);
// Every GPU stage recorded as skipped, when they cannot run at all.
void skip_gpu_stages(EvaluationRecord& r, const std::string& why);

}  // namespace ptxbench

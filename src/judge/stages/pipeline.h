// The pipeline for one candidate, in the order of its description (pipeline.cpp): build -> static
// checks on the CPU (prepare), then on the GPU worker smoke -> sanitize -> eval worker [-> timed
// worker] -> integrity -> stream discipline -> correctness -> target_run -> timing (judge). The
// first stage that fails stops it: the stages after it are recorded as skipped, with the reason.
#pragma once
#include <string>

#include "judge/stages/cpu_stages.h"
#include "judge/stages/gpu_stages.h"

namespace ptxbench {

// True when the candidate is ready for the GPU (built and passed the static checks).
bool run_cpu_stages(CpuStageRun& run);
void run_gpu_stages(GpuStageRun& run);
// Every GPU stage recorded as skipped, when they cannot run at all.
void skip_gpu_stages(EvaluationRecord& r, const std::string& why);

}  // namespace ptxbench

// The target_run stage when in-process counting failed for the tool's own reasons: ncu over one
// checked call on the probe shape; when that fails too, the executed targets are unknown (never
// charged to the candidate), with ncu's log kept.
#pragma once
#include <string>

#include "judge/stages/gpu_stages.h"

namespace ptxbench {

// `why`: why the worker's own count is missing.
void record_target_run_by_ncu(GpuStageRun& c, const std::string& why);

}  // namespace ptxbench

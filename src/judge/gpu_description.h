// Whether the GPU stages can run with these options, on what GPU, and if not, why: asks the
// worker (--info) once per call.
#pragma once
#include "service/candidate_service.h"
#include "judge/evaluator.h"

namespace ptxbench {

GpuDescription describe_gpu_for(const EvalOptions& options);

}  // namespace ptxbench

// Whether the GPU stages can run with these options, on what GPU, and if not, why: asks the
// worker (--info) once per call.
#pragma once
#include <string>

#include "core/json.h"
#include "judge/evaluator.h"

namespace ptxbench {

// Whether the GPU stages will run, on what, and if not, why (said plainly in runs and feedback).
struct GpuDescription {
  bool gpu_stages = false;
  std::string gpu = "none";  // the GPU's name, or "none"
  std::string reason;        // why no GPU stage will run (empty when they will)
  json hello = nullptr;      // the worker's self-description when a GPU answered
};

GpuDescription describe_gpu_for(const EvalOptions& options);

}  // namespace ptxbench

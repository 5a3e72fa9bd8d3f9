// What every worker stage needs: the GPU, the harness's stream, the candidate, the workload, the
// report channel and the watchdog.
#pragma once
#include <string>

#include "core/json.h"
#include "probes/nvml_monitor.h"
#include "runner/detail/device_buffer.h"
#include "runner/result_channel.h"
#include "runner/watchdog.h"
#include "runner/workload.h"

namespace ptxbench {

struct WorkerContext {
  ResultChannel& channel;
  Watchdog& watchdog;
  Workload& workload;
  void* entry = nullptr;  // the candidate's entry point (null in baseline-only modes)
  CudaStream stream;
  NvmlMonitor nvml;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string gpu_name;
};

// Seconds a candidate call may take before the watchdog calls it a hang. Under a sanitizer or a
// profiler every kernel runs many times slower, so the job can scale the limit (watchdog_scale).
double call_time_limit(double flops);
void set_time_limit_scale(double scale);

// Calls the candidate on the harness stream and waits for it under the watchdog; a CUDA error
// (returned, launch or sticky) ends the worker with runtime_error naming `what`.
void call_candidate_checked(WorkerContext& ctx, const std::string& what, double flops);

std::string shape_label(const json& shape);

}  // namespace ptxbench

#include "runner/worker_context.h"

namespace ptxbench {

namespace {
double g_time_limit_scale = 1.0;
}

void set_time_limit_scale(double scale) { g_time_limit_scale = scale > 0 ? scale : 1.0; }

double call_time_limit(double flops) { return (10.0 + flops / 0.2e12) * g_time_limit_scale; }  // at least 0.2 TFLOP/s

std::string shape_label(const json& shape) {
  std::string s;
  for (const auto& [k, v] : shape.items()) s += (s.empty() ? "" : " ") + k + "=" + v.dump();
  return s;
}

void call_candidate_checked(WorkerContext& ctx, const std::string& what, double flops) {
  WatchdogScope guard(ctx.watchdog, what, call_time_limit(flops));
  cudaError_t ret = ctx.workload.call_candidate(ctx.entry, ctx.stream.get());
  cudaError_t launch = cudaGetLastError();
  cudaError_t done = cudaStreamSynchronize(ctx.stream.get());
  for (auto [e, how] : {std::pair{ret, "returned"}, std::pair{launch, "left a launch error"}, std::pair{done, "failed on the GPU"}})
    if (e != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error", what + ": the candidate " + how + " " + cudaGetErrorName(e) + " (" +
                                                      cudaGetErrorString(e) + ")", 4);
}

}  // namespace ptxbench

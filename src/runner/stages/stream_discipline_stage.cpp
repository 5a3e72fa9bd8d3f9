// The stream-discipline stage: one call with the legacy stream held back (host side:
// judge/stages/stream_discipline_stage.cpp).
#include "runner/stages/worker_stages.h"

#include "runner/device_ops.h"
#include "runner/integrity/gpu_activity_monitor.h"

namespace ptxbench {

bool run_stream_discipline(WorkerContext& ctx, const WorkerJob& job) {
  HarnessStreamScope own;  // the harness's section: a stream made here outside the calls is its own
  const json& shape = job.gate_shape;
  const std::string label = shape_label(shape);
  auto s = ctx.stream.get();
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(ctx.draw_seed(), s);
  StreamGate gate;
  // An ungated call first, so the candidate's kernels are loaded before the gate closes. Then
  // fresh inputs, so nothing left over from that call can pass for the gated call's output.
  call_candidate_checked(ctx, "stream-discipline warm-up call on " + label, job.gate_flops, "stream_discipline", label);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  ctx.workload.generate_inputs(ctx.draw_seed(), s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  bool consistent = false, expired = false;
  {
    WatchdogScope guard(ctx.watchdog, "stream-discipline call on " + label, call_time_limit(job.gate_flops) + 5);
    gate.close(2000);
    cudaError_t ret;
    {
      CallScope call(Actor::candidate_call, "stream_discipline", label);
      ret = ctx.workload.call_candidate(ctx.entry, s);
    }
    ctx.workload.snapshot_outputs(s);
    gate.release(s);
    cudaError_t done = cudaDeviceSynchronize();
    if (ret != cudaSuccess || done != cudaSuccess)
      ctx.channel.fatal_and_exit(
          "runtime_error",
          "stream-discipline call on " + label + ": " + cudaGetErrorName(ret != cudaSuccess ? ret : done), 4);
    consistent = ctx.workload.snapshot_matches_outputs();
    expired = gate.expired_before_release();
  }
  json stage = {
      {"type", "stage"}, {"name", "stream_discipline"}, {"shape", shape}, {"device_sync_inside_call", expired}};
  if (!consistent) {
    stage["status"] = "failed";
    stage["verdict"] = "forbidden";
    stage["message"] =
        "output was produced outside the given stream (it changed after the call's stream work "
        "finished): work on another stream or deferred past the call";
  } else {
    stage["status"] = "ok";
    stage["message"] = expired ? "all work finished inside the call (the candidate synchronizes the device)"
                               : "all output produced on the given stream";
  }
  ctx.channel.emit(stage);
  return consistent;
}

}  // namespace ptxbench

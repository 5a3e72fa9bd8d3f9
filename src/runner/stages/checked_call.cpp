// One checked call of the candidate, as the correctness and target_run stages make it.
#include "runner/stages/checked_call.h"

#include <chrono>

#include "core/timestamp.h"
#include "runner/counted_call.h"
#include "runner/integrity/gpu_activity_monitor.h"
#include "runner/reference_client.h"
#include "runner/shared_pause.h"

namespace ptxbench {

CheckOutcome checked_call(WorkerContext& ctx, const json& tol, const std::string& what, double flops,
                          const std::string& stage, const std::string& label, bool counted,
                          std::vector<ExecutedInstruction>* counts, CheckedCallSeconds* seconds,
                          std::optional<std::pair<std::string, uint64_t>> pooled) {
  pause_point(ctx);  // a call boundary: paused here when a timed worker wants the GPU alone
  // The harness's own section (its inputs, the counter's session, the reference): a stream created
  // here outside the candidate's call is the harness's (HarnessStreamScope).
  HarnessStreamScope own;
  auto s = ctx.stream.get();
  auto t = std::chrono::steady_clock::now();
  ctx.guard.reserve(1, ctx.workload.inputs().size());
  const uint64_t seed = pooled ? pooled->second : ctx.draw_seed();
  ctx.workload.generate_inputs(seed, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  CheckedCallSeconds spent;
  spent.inputs = seconds_since(t), t = std::chrono::steady_clock::now();
  auto* monitor = GpuActivityMonitor::instance();
  if (counted) {
    if (monitor) monitor->pause_kernel_records();
    ctx.counter->begin();
  }
  call_candidate_checked(ctx, what, flops, stage, label, counted);
  if (counted) {
    *counts = candidate_counts(ctx.counter->end());
    if (monitor) {
      monitor->resume_kernel_records();
      monitor->record_counted_kernels(monitor->last_call(), executed_kernels(*counts));
    }
  }
  spent.call = seconds_since(t), t = std::chrono::steady_clock::now();
  regenerate_inputs(ctx, seed, false, 0);
  if (pooled) {
    const auto t_reference = std::chrono::steady_clock::now();
    ReferenceClient(ctx.reference_fd).get(pooled->first, seed, ctx.workload, s);
    spent.reference = seconds_since(t_reference);
  } else {
    ctx.workload.compute_reference(s);
  }
  CheckOutcome o = ctx.workload.check(tol, s);  // synchronizes
  spent.reference_and_check = seconds_since(t);
  if (seconds) *seconds = spent;
  fail_if_inputs_modified(o, ctx.guard.changed(ctx.workload, 1).front());
  return o;
}

}  // namespace ptxbench

// One call on one shape, run under compute-sanitizer or ncu by the parent (host side:
// judge/stages/smoke_stage.cpp, sanitize_stage.cpp, ncu_target_run.cpp).
#include "runner/stages/worker_stages.h"

#include <nvtx3/nvToolsExt.h>

#include "probes/ncu_probe.h"

namespace ptxbench {

void run_single_call(WorkerContext& ctx, const json& shape, double flops, bool nvtx_range, bool check,
                     const json& tol) {
  auto s = ctx.stream.get();
  const std::string label = shape_label(shape);
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.guard.reserve(1, ctx.workload.inputs().size());
  const uint64_t seed = ctx.draw_seed();
  ctx.workload.generate_inputs(seed, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  if (nvtx_range) nvtxRangePushA(kCandidateNvtxRange);
  call_candidate_checked(ctx, "call on " + label, flops, "single_call", label);
  if (nvtx_range) nvtxRangePop();
  json stage = {{"type", "stage"}, {"name", "single_call"}, {"status", "ok"}, {"shape", shape}};
  if (check) {
    regenerate_inputs(ctx, seed, false, 0);
    ctx.workload.compute_reference(s);
    CheckOutcome o = ctx.workload.check(tol, s);
    fail_if_inputs_modified(o, ctx.guard.changed(ctx.workload, 1).front());
    stage["check_passed"] = o.passed;
    stage["check_summary"] = o.summary;
  }
  ctx.channel.emit(stage);
}

}  // namespace ptxbench

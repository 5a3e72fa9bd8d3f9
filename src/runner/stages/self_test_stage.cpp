// The harness's own reference against fp64 on the CPU, and the baseline against it (the GPU
// tests' self_test jobs).
#include "runner/stages/worker_stages.h"

namespace ptxbench {

void run_self_test(WorkerContext& ctx, const WorkerJob& job) {
  auto s = ctx.stream.get();
  json results = json::array();
  bool ok = true;
  for (const auto& shape : job.fp64_shapes) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e57, s);
    ctx.workload.compute_reference(s);
    json r = ctx.workload.validate_reference_fp64(s);
    ok = ok && r.at("passed").get<bool>();
    results.push_back({{"shape", shape}, {"reference_vs_fp64", r}});
  }
  for (const auto& shape : job.baseline_shapes) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e58, s);
    ctx.workload.poison_outputs(s);
    ctx.workload.call_baseline(s);
    ctx.workload.compute_reference(s);
    CheckOutcome o = ctx.workload.check(job.tolerances, s);
    ok = ok && o.passed;
    results.push_back(
        {{"shape", shape}, {"baseline_vs_reference", o.detail}, {"passed", o.passed}, {"summary", o.summary}});
  }
  json stage = {{"type", "stage"}, {"name", "self_test"}, {"status", ok ? "ok" : "failed"}, {"results", results}};
  if (!job.baseline_shapes.empty()) stage["baseline"] = ctx.workload.baseline_info();
  ctx.channel.emit(stage);
}

}  // namespace ptxbench

// The target_run stage: executed instructions counted in-process on checked calls (host side:
// judge/stages/target_run_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <chrono>

#include "runner/counted_call.h"
#include "runner/stages/checked_call.h"

namespace ptxbench {

bool run_target_count(WorkerContext& ctx, const WorkerJob& job) {
  json stage = {{"type", "stage"}, {"name", "target_run"}, {"method", "cupti_sass_metrics"}};
  if (!ctx.counter) {
    stage["status"] = "failed";
    stage["tool_failure"] = true;
    stage["message"] = "in-process instruction counting is unavailable: " + ctx.counter_unavailable;
    ctx.channel.emit(stage);
    return true;
  }
  const json& tol = job.tolerances;
  bool all_correct = true;
  std::string wrong;
  json shapes = json::array();
  for (const auto& item : job.count.value_or(std::vector<ShapeWork>{})) {
    const json& shape = item.shape;
    const std::string label = shape_label(shape);
    ctx.channel.emit({{"type", "progress"}, {"stage", "target_run"}, {"shape", shape}});
    ctx.workload.prepare(shape.get<WorkloadShape>());
    std::vector<ExecutedInstruction> counts;
    const auto t0 = std::chrono::steady_clock::now();
    CheckOutcome o = checked_call(ctx, tol, "counted call on " + label, item.flops, "target_run", label, true, &counts);
    json ev = target_counts_json(counts);
    const uint64_t total = ev["executed_instructions"].get<uint64_t>();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ev.update({{"type", "target_counts"},
               {"shape", shape},
               {"flops", item.flops},
               {"check_passed", o.passed},
               {"when", "checked call"},
               {"seconds", seconds}});
    ctx.channel.emit(ev);
    shapes.push_back({{"shape", shape},
                      {"check_passed", o.passed},
                      {"patched_instructions", counts.size()},
                      {"executed_instructions", total},
                      {"seconds", seconds}});
    if (!counts.empty() && total == 0) {
      stage["status"] = "failed";
      stage["tool_failure"] = true;
      stage["message"] = "the instruction counts read zero although " + std::to_string(counts.size()) +
                         " instructions were patched (the counting tool failed)";
      stage["shapes"] = shapes;
      ctx.channel.emit(stage);
      return true;
    }
    if (!o.passed && all_correct)
      all_correct = false, wrong = "the counted call on " + label + " was wrong: " + o.summary;
  }
  stage["shapes"] = shapes;
  stage["status"] = all_correct ? "ok" : "failed";
  stage["message"] = all_correct ? "instructions counted on checked calls" : wrong;
  if (!all_correct) stage["verdict"] = "incorrect";
  ctx.channel.emit(stage);
  return all_correct;
}

}  // namespace ptxbench

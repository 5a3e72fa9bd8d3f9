// The correctness stage: every (shape, seed) of the job checked (host side:
// judge/stages/correctness_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <optional>
#include <utility>

#include "runner/stages/checked_call.h"

namespace ptxbench {

bool run_correctness(WorkerContext& ctx, const WorkerJob& job) {
  const json& tol = job.tolerances;
  int checks = 0, failed = 0;
  json failures = json::array();
  const auto& items = job.correctness;
  for (size_t index = 0; index < items.size(); ++index) {
    const CorrectnessItem& item = items[index];
    const json& shape = item.shape;
    const std::string label = shape_label(shape);
    ctx.workload.prepare(shape.get<WorkloadShape>());
    const auto pooled = ctx.pooled_seeds.find(index);
    for (int i = 0; i < item.seeds; ++i) {
      ctx.channel.emit({{"type", "progress"}, {"stage", "correctness"}, {"shape", shape}, {"seed_index", i}});
      std::optional<std::pair<std::string, uint64_t>> set;
      if (pooled != ctx.pooled_seeds.end() && size_t(i) < pooled->second.size())
        set = {{shape.dump(), pooled->second[size_t(i)]}};
      CheckedCallSeconds seconds;
      CheckOutcome o = checked_call(ctx, tol, "correctness call on " + label, item.flops, "correctness", label, false,
                                    nullptr, &seconds, set);
      ++checks;
      json ev = {{"type", "check"},
                 {"shape", shape},
                 {"seed_index", i},
                 {"hidden", item.hidden},
                 {"passed", o.passed},
                 {"summary", o.summary},
                 {"detail", o.detail},
                 {"seconds", seconds.to_json()},
                 {"reference", set ? "pooled: made before a candidate loaded, handed over after this call"
                                   : "computed after the call"}};
      ctx.channel.emit(ev);
      if (!o.passed) {
        ++failed;
        if (failures.size() < 5) failures.push_back(ev);
        break;  // one failing seed is enough for this shape
      }
    }
  }
  json stage = {{"type", "stage"}, {"name", "correctness"}, {"checks", checks}, {"failed", failed}};
  if (failed) {
    const auto& first = failures.front();
    stage["status"] = "failed";
    stage["verdict"] = "incorrect";
    stage["message"] = "wrong on " + shape_label(first.at("shape")) +
                       (first.at("hidden").get<bool>() ? " (hidden shape)" : "") + ": " +
                       first.at("summary").get<std::string>();
    stage["failures"] = failures;
  } else {
    stage["status"] = "ok";
    stage["message"] = std::to_string(checks) + " checks passed";
  }
  ctx.channel.emit(stage);
  return failed == 0;
}

}  // namespace ptxbench

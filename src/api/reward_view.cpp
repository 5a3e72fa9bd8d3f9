// The flat view of a judged candidate an RL trainer computes its reward from, beside the full record.
#include "api/reward_view.h"

#include "agent/feedback.h"
#include "fixit_core/error_class.h"

namespace ptxbench::api {
namespace {

json optional_json(const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json reward_view(const EvaluationRecord& r, const ProblemSpec* problem, const json& service_timings) {
  const StageResult* build = r.stage("build");
  json speedups = json::array();
  for (const auto& t : r.timing)
    speedups.push_back({{"shape", t.shape},
                        {"speedup", t.speedup},
                        {"median_ms", t.median_ms},
                        {"baseline_ms", t.baseline_median_ms}});
  json stage_seconds = json::object();
  for (const auto& s : r.stages) stage_seconds[s.name] = s.seconds;
  json error_class = nullptr, signature = nullptr;
  if (auto c = fixit::classify(r, problem, {})) error_class = c->name, signature = c->signature;
  FeedbackContext context;
  context.problem = problem;
  json service = json::object();
  if (service_timings.is_object())
    for (const char* k : {"prepare_seconds", "gpu_seconds"})
      if (service_timings.contains(k)) service[k] = service_timings[k];
  return {{"compiled", build != nullptr && build->status == StageStatus::ok},
          {"verdict", std::string(to_string(r.verdict))},
          {"reason", r.reason},
          {"correct", r.verdict == Verdict::correct},
          {"counts", counts_against_candidate(r.verdict)},
          {"forbidden", r.verdict == Verdict::forbidden},
          {record_key::speedup_geomean, optional_json(r.speedup_geomean)},
          {"speedups", speedups},
          {"target_executed", optional_json(r.target_executed)},
          {"target_seen", optional_json(r.target_seen)},
          {"target_static", r.target_static},
          {"tensor_flop_share", optional_json(r.tensor_flop_share)},
          {"tma_byte_share", optional_json(r.tma_byte_share)},
          {"error_class", error_class},
          {"error_signature", signature},
          {"feedback", render_feedback(r, context)},
          {"stage_seconds", stage_seconds},
          {"service_seconds", service}};
}

}  // namespace ptxbench::api

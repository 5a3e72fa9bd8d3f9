// The timing stage: every timed shape, the candidate against the library beside it and alone
// (host side: judge/stages/timing_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/timestamp.h"
#include "runner/sampling_rule.h"
#include "runner/timing.h"

namespace ptxbench {

namespace {

// Baseline drift beside the candidate against the baseline alone: reported above the first,
// forbidden above the second when the baseline alone is back to normal afterwards.
constexpr double kDriftReported = 0.03, kDriftForbidden = 0.10;

}  // namespace

bool run_timing(WorkerContext& ctx, const WorkerJob& job) {
  const TimingConfig cfg = TimingConfig::from_json(job.timing_config.value_or(json::object()));
  bool ok = true;
  std::string message, verdict;
  std::vector<json> timings;
  std::vector<std::pair<ShapeWork, double>> drifted;  // (timing item, drift)
  for (const auto& item : job.timing.value_or(std::vector<ShapeWork>{})) {
    ctx.channel.emit({{"type", "progress"}, {"stage", "timing"}, {"shape", item.shape}});
    json t = time_shape(ctx, item.shape, item.flops, cfg, job.count.has_value());
    if (t.contains("counted_instructions")) {
      // The secretly counted timed sample: its counts go with the others (checked by its timed check).
      json ev = t["counted_instructions"];
      bool sample_ok = true;
      for (const auto& f : t.at("timed_check_failures")) sample_ok = sample_ok && f.at("side") != "candidate";
      ev.update({{"type", "target_counts"},
                 {"shape", item.shape},
                 {"flops", item.flops},
                 {"check_passed", sample_ok},
                 {"when", "timed sample " + std::to_string(t["counted_sample"].get<int>())}});
      ctx.channel.emit(ev);
      t.erase("counted_instructions");
    }
    const std::string label = shape_label(item.shape);
    if (auto it = ctx.clean_baseline.find(label);
        it != ctx.clean_baseline.end() && t.contains("baseline") && it->second.median_ms > 0) {
      const double drift = t["baseline"]["median_ms"].get<double>() / it->second.median_ms - 1;
      t["baseline_alone"] = {{"before_ms", it->second.median_ms}, {"drift", drift}};
      if (std::fabs(drift) > kDriftReported) drifted.emplace_back(item, drift);
    }
    for (const auto& f : t.at("timed_check_failures"))
      if (f.at("side") == "candidate" && ok) {
        ok = false;
        verdict = "incorrect";
        message = "a timed call on " + label + " failed its check: " + f.at("why").get<std::string>();
      }
    if (t.at("below_floor").get<bool>() && ok) {
      ok = false;
      verdict = "forbidden";
      message = "impossible time on " + label + ": median " +
                std::to_string(t["candidate"]["median_ms"].get<double>()) + " ms is below the hardware floor " +
                std::to_string(t["floor_ms"].get<double>()) + " ms";
    }
    timings.push_back(std::move(t));
  }
  // The baseline beside the candidate disagrees with the baseline alone: measure it alone again.
  // Back to normal alone means the candidate slowed it; still off means the GPU changed.
  json drift_report = json::array();
  const auto retimed_from = std::chrono::steady_clock::now();
  for (auto& [item, drift] : drifted) {
    const std::string label = shape_label(item.shape);
    CleanBaseline again = time_baseline_alone(ctx, item.shape, item.flops, cfg);
    const double before = ctx.clean_baseline[label].median_ms;
    const double after_drift = before > 0 ? again.median_ms / before - 1 : 0;
    for (auto& t : timings)
      if (shape_label(t.at("shape")) == label) {
        t["baseline_alone"]["after_ms"] = again.median_ms;
        t["baseline_alone"]["after_drift"] = after_drift;
        const double beside = t["baseline"]["median_ms"].get<double>();
        char line[320];
        std::snprintf(line, sizeof line,
                      "on %s the library took %.4f ms alone before the candidate, %.4f ms beside it, "
                      "%.4f ms alone after it",
                      label.c_str(), before, beside, again.median_ms);
        drift_report.push_back(line);
        if (!ok) break;
        if (std::fabs(after_drift) > kDriftReported) {
          ok = false, verdict = "infra_error";
          message = std::string("the GPU's speed changed during the evaluation: ") + line;
        } else if (drift > kDriftForbidden) {
          ok = false, verdict = "forbidden";
          message = std::string("the library ran ") + std::to_string(int(std::lround(drift * 100))) +
                    "% slower beside the candidate than alone: " + line;
        }
      }
  }
  for (auto& t : timings) {
    t["type"] = "timing";
    ctx.channel.emit(t);
  }
  json stage = {{"type", "stage"},
                {"name", "timing"},
                {"status", ok ? "ok" : "failed"},
                {"message", ok ? "every timed output checked" : message},
                {"baseline", ctx.workload.baseline_info()},
                {"sampling_rule", sampling_rule_json(cfg)}};
  if (!drift_report.empty()) {
    stage["baseline_drift"] = drift_report;
    stage["baseline_drift_seconds"] = seconds_since(retimed_from);  // the library timed alone again
  }
  if (!ok) stage["verdict"] = verdict;
  ctx.channel.emit(stage);
  return ok;
}

}  // namespace ptxbench

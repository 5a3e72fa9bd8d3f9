// The timing stage: every timed shape, the candidate against the library beside it and alone
// (host side: judge/stages/timing_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <utility>

#include "core/timestamp.h"
#include "runner/baseline_drift.h"
#include "runner/sampling_rule.h"
#include "runner/timing.h"

namespace ptxbench {

namespace {

// Rests the GPU, bounded, until NVML says it has cooled down to where it was before the candidate
// loaded (runner/baseline_drift.h). Returns whether it did.
bool cool_down(WorkerContext& ctx) {
  const auto from = std::chrono::steady_clock::now();
  for (;;) {
    const double waited = seconds_since(from);
    const GpuState now = ctx.nvml.read();
    if (waited >= kCoolDownMinSeconds && cooled_down(now, ctx.before_candidate)) return true;
    if (waited >= kCoolDownMaxSeconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(now.available ? 250 : 1000));
  }
}

}  // namespace

bool run_timing(WorkerContext& ctx, const WorkerJob& job) {
  const TimingConfig cfg = TimingConfig::from_json(job.timing_config.value_or(json::object()));
  bool ok = true;
  std::string message, verdict;
  std::vector<json> timings;
  std::vector<ShapeWork> drifted;  // the timing items whose library beside the candidate drifted
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
      if (std::fabs(drift) > kDriftReported) drifted.push_back(item);
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
  // The baseline beside the candidate disagrees with the baseline alone: measure it alone again,
  // at once, and (still slower: a hot GPU) after each bounded cool-down; what that says is decided
  // by decide_baseline_drift (runner/baseline_drift.h): a candidate never turns its verdict into
  // an infra error by heating the GPU.
  json drift_report = json::array();
  const auto retimed_from = std::chrono::steady_clock::now();
  std::vector<BaselineDrift> drifts;
  for (const auto& item : drifted) {
    BaselineDrift d;
    d.before_ms = ctx.clean_baseline[shape_label(item.shape)].median_ms;
    for (const auto& t : timings)
      if (shape_label(t.at("shape")) == shape_label(item.shape)) d.beside_ms = t["baseline"]["median_ms"].get<double>();
    d.alone_after_ms.push_back(time_baseline_alone(ctx, item.shape, item.flops, cfg).median_ms);
    drifts.push_back(std::move(d));
  }
  int cool_downs = 0;
  bool cooled = true;  // every cool-down reached NVML's cool state
  double cool_down_seconds = 0;
  // Not once the verdict is decided otherwise (a failed timed check, a time below the floor).
  while (ok && std::any_of(drifts.begin(), drifts.end(), needs_cool_down)) {
    const auto from = std::chrono::steady_clock::now();
    cooled = cool_down(ctx) && cooled;
    cool_down_seconds += seconds_since(from);
    ++cool_downs;
    for (size_t i = 0; i < drifts.size(); ++i)
      if (needs_cool_down(drifts[i]))
        drifts[i].alone_after_ms.push_back(time_baseline_alone(ctx, drifted[i].shape, drifted[i].flops, cfg).median_ms);
  }
  double health_ms = 0;
  if (ok && std::any_of(drifts.begin(), drifts.end(), needs_health_check)) {
    health_ms = time_health_kernel(ctx);
    for (auto& d : drifts) d.health_before_ms = ctx.health_reference_ms, d.health_after_ms = health_ms;
  }
  std::string thermal, infra;  // the first note of a kept verdict; the first GPU fault
  for (size_t i = 0; i < drifts.size(); ++i) {
    const std::string label = shape_label(drifted[i].shape);
    const DriftDecision dd = decide_baseline_drift(drifts[i], label);
    for (auto& t : timings)
      if (shape_label(t.at("shape")) == label) {
        json& alone = t["baseline_alone"];
        alone["after_ms"] = dd.fastest_after_ms;  // the fastest alone after: the judge's baseline may take it
        alone["after_drift"] = dd.after_drift;
        alone["after_attempts_ms"] = drifts[i].alone_after_ms;
        alone["cool_downs"] = dd.cool_downs;
        alone["cooled"] = dd.outcome == DriftOutcome::cooled;
        alone["outcome"] = std::string(to_string(dd.outcome));
        if (dd.outcome == DriftOutcome::cooled || dd.outcome == DriftOutcome::still_off) alone["thermal"] = dd.message;
      }
    drift_report.push_back(dd.report);
    if (ok && dd.outcome == DriftOutcome::forbidden) {
      ok = false, verdict = "forbidden", message = dd.message;
    } else if (dd.outcome == DriftOutcome::infra_error && infra.empty()) {
      infra = dd.message;
    } else if (thermal.empty() && (dd.outcome == DriftOutcome::cooled || dd.outcome == DriftOutcome::still_off)) {
      thermal = dd.message;
    }
  }
  // Only the GPU itself (the health kernel, not the candidate's work) makes an infra error, and
  // never over a verdict the candidate earned (incorrect, forbidden).
  if (ok && !infra.empty()) ok = false, verdict = "infra_error", message = infra;
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
  if (cool_downs > 0) {
    stage["cool_downs"] = cool_downs;
    stage["cool_down_seconds"] = cool_down_seconds;
    stage["cooled_by_nvml"] = cooled;  // every cool-down ended with NVML's cool state, not its time limit
  }
  if (health_ms > 0) stage["health_kernel"] = {{"before_load_ms", ctx.health_reference_ms}, {"after_ms", health_ms}};
  if (!thermal.empty()) stage["thermal"] = thermal;
  if (!ok) stage["verdict"] = verdict;
  ctx.channel.emit(stage);
  return ok;
}

}  // namespace ptxbench

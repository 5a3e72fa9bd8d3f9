// The sanitizers (compute-sanitizer memcheck, racecheck, synccheck): separate processes that time
// nothing, side by side, each on one call of the sanitize shape; their reports come from the
// tool's own log. Before the eval worker (SanitizerOrder::first: all three for every candidate
// that passed the smoke call) or after it (the others: which ones by sanitizer_order.h's plan, and
// after a failure the smoke call, whose failure decides as it did when it ran first).
#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "judge/stages/gpu_stages.h"
#include "judge/stages/sanitizer_order.h"
#include "judge/stages/worker_events.h"
#include "judge/stages/worker_jobs.h"
#include "judge/stages/worker_runs.h"
#include "probes/sanitizer_probe.h"

namespace ptxbench {
namespace {

// How much longer a call may take under compute-sanitizer (racecheck is the slowest).
constexpr double kSanitizerSlowdown = 30;

std::string first_finding(const std::string& report) {
  std::stringstream ss(report);
  for (std::string line; std::getline(ss, line);)
    if (line.find("Invalid") != std::string::npos || line.find("hazard") != std::string::npos ||
        line.find("rror") != std::string::npos)
      return line.substr(line.find_first_not_of("= "));
  return "";
}

// The given compute-sanitizer tools side by side, each on one call of the sanitize shape: the
// first failure (by the tools' order) with every tool's report in its detail, or the clean result.
struct SanitizerRuns {
  std::optional<StageResult> failure;
  json detail = json::object();
  double seconds = 0;
};

SanitizerRuns run_checks(GpuStageRun& c, const std::vector<std::string>& checks) {
  const ProblemSpec& p = c.problem;
  const auto sanitizer = find_compute_sanitizer();
  const WorkerJob job = single_call_job(c.base_job, p, p.sanitize_shape, false, kSanitizerSlowdown, false);
  std::vector<std::pair<std::string, std::future<ToolRun>>> runs;
  for (const std::string& check : checks) {
    auto wrapper = sanitizer_command_prefix(sanitizer, check);
    // Padding after every allocation: a write just past C lands in padding, not a neighbour.
    if (check == "memcheck") wrapper.insert(wrapper.end(), {"--padding", "4096"});
    runs.emplace_back(check, start_tool_run(c.options, c.shared_object, wrapper, job));
  }
  SanitizerRuns out;
  for (auto& [check, fut] : runs) {
    ToolRun t = fut.get();
    out.seconds = std::max(out.seconds, t.run.process.seconds);
    auto findings = parse_sanitizer_output(t.log);
    out.detail[check] = {{"errors", findings.errors},
                         {"warnings", findings.warnings},
                         {"seconds", t.run.process.seconds},
                         {"report", findings.report}};
    if (out.failure) continue;
    if (findings.errors > 0) {
      const std::string first = first_finding(findings.report);
      out.failure = failed_stage(
          "sanitize", Verdict::sanitizer_error,
          check + ": " + std::to_string(findings.errors) + " error(s)" + (first.empty() ? "" : ": " + first),
          {{"tool", check}, {"first_finding", first}});
    } else if (!t.run.done || t.run.tampered) {
      out.failure = abnormal_end("sanitize", t.run);
    } else if (!findings.summary_found) {
      out.failure = failed_stage("sanitize", Verdict::infra_error,
                                 check + ": compute-sanitizer printed no summary (" + t.run.process.describe() + ")");
    }
  }
  if (out.failure) {
    out.failure->detail.update(out.detail);
    out.failure->seconds = out.seconds;
  }
  return out;
}

// Why no sanitizer can run ("" when they can), recorded as the skipped stage.
std::string why_no_sanitizer(const GpuStageRun& c) {
  if (!c.options.sanitize) return "--no-sanitize";
  if (find_compute_sanitizer().empty()) return "compute-sanitizer not found";
  return "";
}

}  // namespace

StageStop run_sanitizers(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  EvaluationRecord& r = c.record;
  if (const std::string why = why_no_sanitizer(c); !why.empty()) {
    r.add_stage(skipped_stage("sanitize", why));
    return {};
  }
  c.note("sanitize: memcheck, racecheck, synccheck on " + shape_to_string(p.sanitize_shape, p.dims));
  SanitizerRuns runs = run_checks(c, {"memcheck", "racecheck", "synccheck"});
  if (runs.failure) {
    r.add_stage(*runs.failure);
    return "the sanitizer stage failed";
  }
  r.add_stage({"sanitize", StageStatus::ok, runs.seconds, "memcheck, racecheck and synccheck clean", runs.detail});
  return {};
}

StageStop run_sanitizers_after_eval(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  EvaluationRecord& r = c.record;
  if (const std::string why = why_no_sanitizer(c); !why.empty()) {
    r.add_stage(skipped_stage("sanitize", why));
    return {};
  }
  const std::string order = to_string(c.options.sanitizer_order);
  const SanitizerPlan plan = sanitizers_after_eval(c.options.sanitizer_order, eval_outcome_of(*c.eval_run));
  if (plan.checks.empty()) {
    StageResult skipped = skipped_stage("sanitize", plan.not_run);
    skipped.detail["order"] = order;
    r.add_stage(skipped);
    return {};
  }
  std::string names;
  for (const auto& check : plan.checks) names += (names.empty() ? "" : ", ") + check;
  c.note("sanitize: " + names + " on " + shape_to_string(p.sanitize_shape, p.dims));
  SanitizerRuns runs = run_checks(c, plan.checks);
  if (runs.failure) {
    // The old order's smoke call, which ran before the sanitizers and decided when it failed.
    c.note("sanitize: a sanitizer failed; the smoke call the sanitizers' verdict depends on");
    EvaluationRecord smoke_record;
    GpuStageRun smoke_run{c.problem,    c.options,  c.gpu,  c.shared_object, c.sass,
                          smoke_record, c.progress, c.seed, c.base_job};
    std::optional<StageResult> smoke_failure;
    if (run_smoke_call(smoke_run))
      if (const StageResult* s = smoke_record.stage("sanitize")) smoke_failure = *s;
    StageResult decided = as_in_the_old_order(smoke_failure, *runs.failure);
    decided.detail["order"] = order;
    r.add_stage(decided);
    return "the sanitizer stage failed";
  }
  json detail = runs.detail;
  detail["order"] = order;
  std::string message = plan.checks.size() == 3 ? "memcheck, racecheck and synccheck clean" : names + " clean";
  if (!plan.not_run.empty()) {
    detail["not_run"] = plan.not_run;
    message += "; " + plan.not_run;
  }
  r.add_stage({"sanitize", StageStatus::ok, runs.seconds, message, detail});
  return {};
}

}  // namespace ptxbench

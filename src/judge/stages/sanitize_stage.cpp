// The sanitizers (compute-sanitizer memcheck, racecheck, synccheck): separate processes that time
// nothing, side by side, each on one call of the sanitize shape; their reports come from the
// tool's own log.
#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "judge/stages/gpu_stages.h"
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

}  // namespace

StageStop run_sanitizers(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  EvaluationRecord& r = c.record;
  if (!c.options.sanitize) {
    r.add_stage(skipped_stage("sanitize", "--no-sanitize"));
    return {};
  }
  const auto sanitizer = find_compute_sanitizer();
  if (sanitizer.empty()) {
    r.add_stage(skipped_stage("sanitize", "compute-sanitizer not found"));
    return {};
  }
  c.note("sanitize: memcheck, racecheck, synccheck on " + shape_to_string(p.sanitize_shape, p.dims));
  const WorkerJob job = single_call_job(c.base_job, p, p.sanitize_shape, false, kSanitizerSlowdown, false);
  std::vector<std::pair<std::string, std::future<ToolRun>>> runs;
  for (const std::string check : {"memcheck", "racecheck", "synccheck"}) {
    auto wrapper = sanitizer_command_prefix(sanitizer, check);
    // Padding after every allocation: a write just past C lands in padding, not a neighbour.
    if (check == "memcheck") wrapper.insert(wrapper.end(), {"--padding", "4096"});
    runs.emplace_back(check, start_tool_run(c.options, c.shared_object, wrapper, job));
  }
  json detail = json::object();
  double secs = 0;
  std::optional<StageResult> failure;
  for (auto& [check, fut] : runs) {
    ToolRun t = fut.get();
    secs = std::max(secs, t.run.process.seconds);
    auto findings = parse_sanitizer_output(t.log);
    detail[check] = {{"errors", findings.errors},
                     {"warnings", findings.warnings},
                     {"seconds", t.run.process.seconds},
                     {"report", findings.report}};
    if (failure) continue;
    if (findings.errors > 0) {
      const std::string first = first_finding(findings.report);
      failure = failed_stage(
          "sanitize", Verdict::sanitizer_error,
          check + ": " + std::to_string(findings.errors) + " error(s)" + (first.empty() ? "" : ": " + first),
          {{"tool", check}, {"first_finding", first}});
    } else if (!t.run.done || t.run.tampered) {
      failure = abnormal_end("sanitize", t.run);
    } else if (!findings.summary_found) {
      failure = failed_stage("sanitize", Verdict::infra_error,
                             check + ": compute-sanitizer printed no summary (" + t.run.process.describe() + ")");
    }
  }
  if (failure) {
    failure->detail.update(detail);
    failure->seconds = secs;
    r.add_stage(*failure);
    return "the sanitizer stage failed";
  }
  r.add_stage({"sanitize", StageStatus::ok, secs, "memcheck, racecheck and synccheck clean", detail});
  return {};
}

}  // namespace ptxbench

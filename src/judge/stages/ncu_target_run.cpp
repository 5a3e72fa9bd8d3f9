// The target_run stage by ncu over one checked call, when in-process counting failed for the tool's reasons.
#include "judge/stages/ncu_target_run.h"

#include "compile/static_checks.h"
#include "core/error.h"
#include "judge/stages/worker_events.h"
#include "judge/stages/worker_jobs.h"
#include "judge/stages/worker_runs.h"
#include "probes/ncu_probe.h"

namespace ptxbench {
namespace {

// How much longer a call may take under ncu.
constexpr double kProfilerSlowdown = 10;

}  // namespace

void record_target_run_by_ncu(GpuStageRun& c, const std::string& why) {
  const ProblemSpec& p = c.problem;
  EvaluationRecord& r = c.record;
  json detail = {{"in_process", why}};
  const auto ncu = find_ncu();
  if (ncu.empty()) {
    r.add_stage({"target_run", StageStatus::ok, 0, "executed targets unknown: " + why + "; ncu not found", detail});
    return;
  }
  c.note("target_run: in-process counting failed (" + why + "); ncu over a checked call on " +
         shape_to_string(p.probe_shape, p.dims));
  ToolRun t = start_tool_run(c.options, c.shared_object, ncu_command_prefix(ncu),
                             single_call_job(c.base_job, p, p.probe_shape, true, kProfilerSlowdown, true))
                  .get();
  detail["method"] = "ncu";
  std::string unknown;
  if (!t.run.done) unknown = "ncu run ended early (" + t.run.process.describe() + ")";
  else if (auto sc = t.run.stage("single_call"); !sc || !sc->value("check_passed", false))
    unknown = "the call ncu counted was not correct under the profiler";
  if (unknown.empty()) {
    try {
      NcuReport rep = parse_ncu_csv(t.log);
      const auto& groups = p.targets_for(r.arch)->groups;
      r.executed_families = select_families(rep.total, groups);
      // ncu counts opcodes only: no shares, so the strict flag stays unknown unless nothing executed.
      r.target_seen = groups_satisfied(rep.total, groups);
      const TargetWork& work = p.targets_for(r.arch)->work;
      if (!*r.target_seen || (work.tensor_flop_share <= 0 && work.tma_byte_share <= 0))
        r.target_executed = r.target_seen;
      else r.target_executed.reset();
      json kernels = json::array();
      for (const auto& k : rep.kernels)
        kernels.push_back({{"name", k.name}, {"targets", select_families(k.opcodes, groups)}});
      detail["kernels"] = kernels;
      detail["executed_families"] = r.executed_families;
      r.add_stage(
          timed_by({"target_run", StageStatus::ok, 0,
                    std::string(*r.target_seen ? "target families executed (whether they did the work is unknown)"
                                               : "target families did NOT execute") +
                        " (ncu, probe shape)",
                    detail},
                   t.run));
    } catch (const Error& e) {
      unknown = std::string("ncu's report could not be read: ") + e.what();
    }
  }
  if (!unknown.empty()) {
    detail["ncu_log"] = t.log.substr(0, 4000);
    detail["ncu_process"] = t.run.process.describe();
    r.target_executed.reset();
    r.target_seen.reset();
    r.add_stage(timed_by(
        {"target_run", StageStatus::ok, 0, "executed targets unknown: " + why + "; " + unknown, detail}, t.run));
  }
}

}  // namespace ptxbench

// Executed target instructions, counted in the worker on checked calls (and on the timed run's
// secretly counted sample) and read through the SASS listing; when that tool fails, ncu over a
// checked call (ncu_target_run.h).
#include <cstdio>
#include <vector>

#include "compile/static_checks.h"
#include "service/pipeline/gpu_stages.h"
#include "service/pipeline/ncu_target_run.h"
#include "service/pipeline/sass_scan.h"
#include "service/pipeline/worker_events.h"
#include "service/target_counts.h"

namespace ptxbench {
namespace {

bool correct_stage_ran(const EvaluationRecord& r) {
  const auto* c = r.stage("correctness");
  return c && c->status != StageStatus::skipped;
}

// Executed targets from the counted calls, into the record: target_executed only when every
// counted shape executed every target group.
StageResult apply_target_counts(const std::vector<json>& events, const SassListing& listing, const ProblemSpec& p,
                                EvaluationRecord& r, json detail) {
  const auto& groups = p.targets_for(r.arch)->groups;
  bool every_shape = !events.empty();
  double mma_flops = 0, problem_flops = 0;
  OpcodeCounts all;
  json shapes = json::array();
  for (const auto& ev : events) {
    ExecutedTargets t = executed_targets(ev, listing, groups);
    const bool satisfied = groups_satisfied(t.opcodes, groups);
    every_shape = every_shape && satisfied;
    mma_flops += t.warpgroup_mma_flops, problem_flops += t.problem_flops;
    for (const auto& [op, n] : t.opcodes) all[op] += n;
    shapes.push_back({{"shape", ev.at("shape")},
                      {"when", ev.value("when", "")},
                      {"targets_executed", satisfied},
                      {"executed_families", select_families(t.opcodes, groups)},
                      {"tensor_flop_share", t.problem_flops > 0 ? t.warpgroup_mma_flops / t.problem_flops : 0.0},
                      {"other_tensor_flop_share", t.problem_flops > 0 ? t.other_tensor_flops / t.problem_flops : 0.0},
                      {"unmatched_executions", t.unmatched},
                      {"check_passed", t.check_passed},
                      {"kernels", t.kernels}});
  }
  r.executed_families = select_families(all, groups);
  r.target_executed = every_shape;
  if (problem_flops > 0) r.tensor_flop_share = mma_flops / problem_flops;
  detail["shapes"] = shapes;
  detail["executed_families"] = r.executed_families;
  char share[64] = "";
  if (r.tensor_flop_share) std::snprintf(share, sizeof share, "; %.0f%% of the FLOPs on tensor instructions", *r.tensor_flop_share * 100);
  return {"target_run", StageStatus::ok, 0,
          std::string(every_shape ? "target families executed on every counted shape" : "target families did NOT execute") + share,
          detail};
}

}  // namespace

StageStop record_target_run(GpuStageRun& c) {
  EvaluationRecord& r = c.record;
  const WorkerRun& run = *c.eval_run;
  const bool disciplined = r.stage("stream_discipline")->status == StageStatus::ok;
  auto counted = run.stage("target_run");
  if (!c.options.probe) {
    r.add_stage(skipped_stage("target_run", "--no-probe"));
  } else if (!c.no_counted_calls.empty()) {
    // Nothing to count (why_no_counted_calls): the SASS holds no target and no tensor instruction.
    if (!disciplined || c.audit_failed() || !correct_stage_ran(r)) {
      r.add_stage(skipped_stage("target_run", c.why_not_reached()));
      return {};
    }
    r.target_executed = false;
    r.tensor_flop_share = 0.0;
    r.add_stage({"target_run", StageStatus::ok, 0, "target families did NOT execute (calls not counted: " + c.no_counted_calls + ")",
                 {{"counted", false}, {"why", c.no_counted_calls}, {"executed_families", json::object()}}});
  } else if (counted && !counted->value("tool_failure", false)) {
    auto s = from_worker_stage(*counted);
    if (s.status == StageStatus::ok || s.detail.value("verdict", "") == "incorrect") {
      const SassListing& listing = finished_listing(c.sass);
      std::vector<json> counts = run.of_type("target_counts");
      if (c.timed_run)  // the secretly counted timed sample
        for (auto& count : c.timed_run->of_type("target_counts")) counts.push_back(std::move(count));
      StageResult applied = apply_target_counts(counts, listing, c.problem, r, s.detail);
      if (s.status == StageStatus::failed) applied.status = StageStatus::failed, applied.message = s.message;
      r.add_stage(applied);
    } else {
      r.add_stage(s);
    }
  } else if (!counted && !run.done && correct_stage_ran(r) && !c.audit_failed()) {
    // The worker ended during its counted calls: the candidate's failure, at that stage.
    r.add_stage(timed_by(abnormal_end("target_run", run), run));
    c.runtime_failed = true;
  } else if (counted || (run.done && !c.audit_failed() && disciplined)) {
    record_target_run_by_ncu(c, counted ? counted->value("message", "") : "the worker did not count instructions");
  } else {
    r.add_stage(skipped_stage("target_run", c.why_not_reached()));
  }
  return {};
}

}  // namespace ptxbench

// Executed target instructions, counted in the worker on checked calls (and on the timed run's
// secretly counted sample) and read through the SASS listing; when that tool fails, ncu over a
// checked call (ncu_target_run.h).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "compile/static_checks.h"
#include "judge/stages/gpu_stages.h"
#include "judge/stages/ncu_target_run.h"
#include "judge/stages/sass_scan.h"
#include "judge/stages/worker_events.h"
#include "judge/target_counts.h"
#include "judge/timed_work.h"

namespace ptxbench {
namespace {

bool correct_stage_ran(const EvaluationRecord& r) {
  const auto* c = r.stage("correctness");
  return c && c->status != StageStatus::skipped;
}

// Executed targets from the counted calls, into the record: target_seen when every counted shape
// executed every target group (the paper's flag), target_executed when on every counted shape the
// targets also did the problem's share of the work ([targets.<arch>.work]).
StageResult apply_target_counts(const std::vector<json>& events, const SassListing& listing, const ProblemSpec& p,
                                EvaluationRecord& r, json detail) {
  const ArchTargets& targets = *p.targets_for(r.arch);
  const TargetWorkSummary sum = summarize_target_work(
      events, listing, targets.groups, targets.work,
      [&](const json& shape) { return p.operand_byte_count(shape.get<Shape>()); },
      [&](const json& shape) { return shape_to_string(shape.get<Shape>(), p.dims); });
  r.executed_families = select_families(sum.executed, targets.groups);
  r.target_seen = sum.seen;
  r.target_executed = sum.does_the_work;
  r.tensor_flop_share = sum.tensor_flop_share;
  r.tma_byte_share = sum.tma_byte_share;
  detail["shapes"] = sum.shapes;
  detail["executed_families"] = r.executed_families;
  detail["work_required"] = {{"tensor_flop_share", targets.work.tensor_flop_share},
                             {"max_target_flop_ratio", targets.work.max_target_flop_ratio},
                             {"max_other_math_share", targets.work.max_other_math_share},
                             {"tma_load_share", targets.work.tma_load_share},
                             {"tma_byte_share", targets.work.tma_byte_share}};
  char share[160] = "";
  if (r.tensor_flop_share)
    std::snprintf(share, sizeof share,
                  "; %.0f%% of the FLOPs on tensor instructions, TMA moved %.3gx the operand bytes",
                  *r.tensor_flop_share * 100, r.tma_byte_share.value_or(0.0));
  const std::string what = sum.does_the_work ? "target families executed and did the work on every counted call"
                           : sum.seen        ? "target families executed but did NOT do the work: " + sum.shortfall
                           : sum.shortfall.empty()
                               ? std::string("target families did NOT execute")
                               : "target families did NOT execute on every counted call: " + sum.shortfall;
  return {"target_run", StageStatus::ok, 0, what + share, detail};
}

// The timed calls' own work (judge/timed_work.h) decides target_executed (issue 45: one kind of
// call): the checked calls' counts must agree, and where the timed calls were not counted (no
// timing, or the counters could not run) the flag is unknown, never granted. The record's shares
// are the timed calls' where counted.
void apply_timed_work(GpuStageRun& c, StageResult& stage) {
  EvaluationRecord& r = c.record;
  if (!r.target_executed.has_value()) return;
  const auto timings = c.timing_source().of_type("timing");
  const ArchTargets& targets = *c.problem.targets_for(r.arch);
  const TimedWorkCheck tw = check_timed_work(
      timings, targets.work, [&](const json& shape) { return c.problem.operand_byte_count(shape.get<Shape>()); },
      [&](const json& shape) { return shape_to_string(shape.get<Shape>(), c.problem.dims); });
  if (!tw.counted) {
    stage.detail["timed_work"] = {{"counted", false}, {"why", tw.unavailable}};
    if (*r.target_executed) {
      r.target_executed.reset();
      stage.message += "; the timed calls' work is unknown (" + tw.unavailable + "), so target_executed is too";
    }
    return;
  }
  stage.detail["timed_work"] = {{"counted", true},
                                {"shapes", tw.shapes},
                                {"does_the_work", tw.does_the_work},
                                {"tensor_flop_share", *tw.tensor_flop_share},
                                {"other_math_share", *tw.other_math_share},
                                {"tma_load_share", *tw.tma_load_share}};
  r.tensor_flop_share = *tw.tensor_flop_share;
  r.tma_byte_share = *tw.tma_byte_share;
  if (!tw.does_the_work) {
    const bool was = *r.target_executed;
    r.target_executed = false;
    if (was)
      stage.message =
          "target families executed on the checked calls but did NOT do the work in the timed calls: " + tw.shortfall;
    else stage.message += "; in the timed calls too: " + tw.shortfall;
  }
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
    r.target_seen = false;
    r.tensor_flop_share = 0.0;
    r.tma_byte_share = 0.0;
    r.add_stage({"target_run",
                 StageStatus::ok,
                 0,
                 "target families did NOT execute (calls not counted: " + c.no_counted_calls + ")",
                 {{"counted", false}, {"why", c.no_counted_calls}, {"executed_families", json::object()}}});
  } else if (counted && !counted->value("tool_failure", false)) {
    auto s = from_worker_stage(*counted);
    if (s.status == StageStatus::ok || s.detail.value("verdict", "") == "incorrect") {
      const SassListing* listing = &finished_listing(c.sass);
      SassListing with_images;
      if (!c.image_listing.empty()) {
        with_images = *listing;
        with_images.insert(c.image_listing.begin(), c.image_listing.end());
        listing = &with_images;
      }
      std::vector<json> counts = run.of_type("target_counts");
      if (c.timed_run)  // the secretly counted timed sample
        for (auto& count : c.timed_run->of_type("target_counts")) counts.push_back(std::move(count));
      if (!c.device_tensor_maps.empty())
        for (auto& count : counts) {
          json& maps = count["tensor_maps"];
          if (!maps.is_object()) maps = json::object();
          for (const auto& [name, m] : c.device_tensor_maps.items())
            if (!maps.contains(name)) maps[name] = m;
        }
      StageResult applied = apply_target_counts(counts, *listing, c.problem, r, s.detail);
      apply_timed_work(c, applied);
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

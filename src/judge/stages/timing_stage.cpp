// Timing (measured when correct), with the library timed alone before the candidate loaded, from
// the worker whose timings are kept (the timed worker with a lane gate). The stage is recomputed
// from the raw figures: an impossible time or a failed timed check fails it.
#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"

namespace ptxbench {
namespace {

// Every event of `type`, without its type: the stage's detail.
json events_of_type(const WorkerRun& run, const std::string& type) {
  json out = json::array();
  for (const auto& e : run.of_type(type)) {
    json x = e;
    x.erase("type");
    out.push_back(x);
  }
  return out;
}

}  // namespace

StageStop record_timing(GpuStageRun& c) {
  EvaluationRecord& r = c.record;
  const EvalOptions& o = c.options;
  // Nothing the timed worker reported is kept once it broke the rules.
  if (c.timed_integrity_failure) {
    r.add_stage(skipped_stage("timing", "not kept: " + c.timed_integrity_failure->message));
    return {};
  }
  const WorkerRun& source = c.timing_source();
  // The GPU's state as that worker began, with or without timing.
  if (auto st = source.of_type("gpu_state"); !st.empty()) r.environment["gpu_state_at_start"] = st.front();
  const bool correct = r.stage("correctness")->status == StageStatus::ok;
  for (const auto& t : source.of_type("timing")) r.timing.push_back(to_shape_timing(t));
  if (auto ev = source.stage("timing")) {
    auto s = from_worker_stage(*ev);
    for (const auto& t : source.of_type("timing")) {
      const double median = t.value("candidate", json::object()).value("median_ms", 0.0),
                   floor = t.value("floor_ms", 0.0);
      bool check_failed = false;
      for (const auto& f : t.value("timed_check_failures", json::array()))
        check_failed = check_failed || f.value("side", "") == "candidate";
      if (s.status == StageStatus::ok && (median <= 0 || (floor > 0 && median < floor) || check_failed)) {
        s.status = StageStatus::failed;
        s.detail["verdict"] = check_failed ? "incorrect" : median <= 0 ? "infra_error" : "forbidden";
        s.message = check_failed  ? "a timed call failed its check"
                    : median <= 0 ? "the worker reported no time"
                                  : "a time below the hardware floor";
      }
    }
    if (c.timed_run) s.seconds = c.timed_run->process.seconds;
    s.detail["shapes"] = events_of_type(source, "timing");
    s.detail["baseline_alone"] = events_of_type(source, "baseline_alone");
    if (c.timed_run) {
      s.detail["exclusive_worker"] = true;
      // When it had the GPU alone: from its request, just before its first timed sample.
      const auto asked = source.of_type("exclusive_gpu");
      // Its grants: for the library's clean timings (given back before the load) and for timing.
      if (!asked.empty()) {
        double waited = 0, settle = 0;
        json grants = json::array();
        for (const auto& a : asked) {
          waited += a.value("waited_seconds", 0.0), settle += a.value("settle_seconds", 0.0);
          grants.push_back(a.value("for", "timing"));
        }
        s.detail["exclusive_wait_seconds"] = waited;
        s.detail["exclusive_settle_seconds"] = settle;
        s.detail["exclusive_grants"] = grants;
      }
      if (const auto back = source.of_type("shared_gpu"); !back.empty())
        s.detail["shared_again_wait_seconds"] = back.front().value("waited_seconds", 0.0);
      s.detail["exclusive_held_seconds"] = c.timed_exclusive_seconds;
      s.detail["baseline_cache_wait_seconds"] = c.baseline_cache_wait_seconds;
      // Its last audit (synchronize, CUPTI's flush, the audit), after its last sample.
      for (const auto& st : source.of_type("stage"))
        if (st.value("name", "") == "integrity" && st.value("after", "") == "the last stage")
          s.detail["final_audit_seconds"] = st.value("audit_seconds", 0.0);
      // From its "done" (results sent) to its end, which ends the exclusive use: its exit.
      for (const auto& d : source.of_type("done"))
        if (const uint64_t at = d.value("at_ns", uint64_t{0}); at > 0 && source.ended_ns >= at)
          s.detail["exit_after_done_seconds"] = double(source.ended_ns - at) / 1e9;
    }
    if (!c.no_counted_sample.empty()) s.detail["counted_timed_sample"] = c.no_counted_sample;
    r.add_stage(s);
  } else if (correct && o.timing && !c.audit_failed() && !c.runtime_failed &&
             r.stage("target_run")->status != StageStatus::failed) {
    r.add_stage(c.timed_run ? timed_by(abnormal_end("timing", source), source) : abnormal_end("timing", source));
  } else {
    r.add_stage(skipped_stage("timing", !o.timing          ? "--no-timing"
                                        : c.audit_failed() ? "the GPU activity audit failed"
                                                           : "the candidate is not correct"));
  }
  return {};
}

}  // namespace ptxbench

// With a lane gate, the eval job's timed shapes in a worker of their own, once the shared part
// passed: it starts under shared use of the GPU and holds exclusive use from just before its first
// timed sample, and for the library's clean timings before its candidate loads when it takes them
// (judge/exclusive_handshake.h); the library's clean timings come from and go to the baseline
// cache when there is one (a worker waits for another timing the same shapes alone). Shared workers
// that can pause are paused for its window, and a window one of them ran in is timed again
// (judge/shared_pause_link.h); so is the timed worker itself while it starts, for another timed
// worker's window (EvalOptions::pausable_timed_start), and its GPU work then is held against that
// window too. A candidate
// whose counted calls ran no target instruction is timed without the secretly counted sample: it
// cannot earn target credit from one, and the instrumented sample of a naive kernel held the GPU
// alone for most of the timing (H200 bench).
#include "judge/caches/baseline_cache.h"
#include "judge/caches/library_timings.h"
#include "judge/infra_fault.h"
#include "judge/shared_pause_link.h"
#include "judge/stages/gpu_stages.h"
#include "judge/stages/sass_scan.h"
#include "judge/stages/timed_split.h"
#include "judge/stages/worker_events.h"
#include "judge/target_counts.h"
#include "judge/timed_grant.h"

namespace ptxbench {
namespace {

// Why the timed worker need not count a sample ("" = it must): the counted calls, read through the
// candidate's SASS listing, executed no target instruction on any shape.
std::string why_no_counted_sample(const GpuStageRun& c) {
  const WorkerRun& run = *c.eval_run;
  const auto counted = run.stage("target_run");
  if (!counted || counted->value("status", "") != "ok") return "";
  const auto* targets = c.problem.targets_for(c.record.arch);
  if (!targets) return "";
  if (!counted_calls_show_no_target(run.of_type("target_counts"), finished_listing(c.sass), targets->groups)) return "";
  return "not taken: the counted calls executed no target instruction, so no timed sample could earn target credit";
}

}  // namespace

StageStop run_timed_worker(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  const EvalOptions& o = c.options;
  if (!o.lane_gate || !o.timing || !shared_part_passed(*c.eval_run)) return {};
  c.note("timing: exclusive use of GPU " + std::to_string(o.device) + " vs " + p.baseline);
  if (c.no_counted_sample.empty()) c.no_counted_sample = why_no_counted_sample(c);
  WorkerJob timed_job = timed_part_of(c.eval_job, c.no_counted_sample.empty());
  // Its timed calls must run the kernels the counted calls ran, as in one worker (the audit's
  // counted_call_differs).
  timed_job.earlier_counted_kernels = counted_kernels_of(*c.eval_run);
  const std::string cache_scope = p.name + "|" + c.gpu.value("gpu", "") + "|" + o.timing_config.dump();
  // Waits (up to 2 minutes) for another timed worker timing the same shapes alone: its clean
  // timings are then this one's, and the GPU is not held alone for them twice (the time every
  // lane waits). Claims the ones still missing until this worker has stored them.
  BaselineClaim claim;
  if (o.baseline_cache) {
    claim = o.baseline_cache->claim(cache_scope, o.device, to_json(*c.eval_job.timing), std::chrono::seconds(120));
    timed_job.baseline_alone_cache = claim.cached();
    c.baseline_cache_wait_seconds = claim.waited_seconds();
  }
  // The workspace's stored clean timings, for the shapes the in-memory cache does not hold.
  offer_library_timings(c, timed_job, timed_job.baseline_alone_cache.value_or(json::object()));
  WorkerLaunch launch = c.launch(std::chrono::seconds(900));
  for (int attempt = 0;; ++attempt) {
    // Shared while the worker starts; exclusive once it asks, before its first timed sample: the
    // shared workers that can pause are paused for it, and their GPU work is held against its window
    // when it ends. A window they ran in is not trusted: the shapes are timed again, in a worker
    // that has the GPU alone only once every shared worker ended.
    // While it starts (until its first request for the GPU alone) it can be paused for another
    // timed worker's window, at its harness steps and, once its candidate loaded, between its
    // warm-up calls; its report of its GPU work is held against that window, as a shared worker's.
    std::optional<SharedPauseLink> start_pause;
    if (o.pausable_timed_start && o.accounting) start_pause.emplace();
    TimedWorkerUse use(*o.lane_gate, /*draining=*/attempt > 0, start_pause ? &*start_pause : nullptr);
    launch.exclusive_gpu = [&use] { use.become_exclusive(); };
    launch.shared_gpu_again = [&use] { use.become_shared(); };
    launch.paused_beside = [&use] { return use.paused_beside(); };
    launch.pause_link = start_pause ? &*start_pause : nullptr;
    c.timed_run = run_worker(launch, to_json(timed_job));
    const std::string untrusted = use.end();
    c.timed_exclusive_seconds += use.exclusive_seconds();
    if (c.timed_run->tampered) {
      c.timed_integrity_failure = timed_by(abnormal_end("integrity", *c.timed_run), *c.timed_run);
      return {};
    }
    if (start_pause) {
      if (start_pause->pauses() > 0) c.record.environment["timed_start_pauses"] = start_pause->pauses();
      // Its GPU work ran in another worker's window after it said it had paused (or its report was
      // forged): whatever the worker reported, as for a shared worker (judge/shared_pause_link.h).
      if (const std::string why = start_pause->violation(); !why.empty()) {
        c.timed_integrity_failure =
            timed_by(failed_stage("integrity", Verdict::forbidden,
                                  "paused while its timed worker started, for another worker's timing: " + why),
                     *c.timed_run);
        return {};
      }
    }
    // Samples taken before the harness's own grant were taken beside other lanes' work; the worker
    // asks only once its candidate is in the process, so that is the candidate's doing.
    if (const std::string why = why_timed_without_grant(*c.timed_run, use.exclusive()); !why.empty()) {
      c.timed_integrity_failure = timed_by(failed_stage("integrity", Verdict::forbidden, why), *c.timed_run);
      return {};
    }
    if (untrusted.empty() || attempt > 0) break;
    c.note("timing: taken again with every shared worker ended (" + untrusted + ")");
    c.record.environment["timing_taken_again"] = untrusted;
  }
  keep_library_timings(c, *c.timed_run);
  if (o.baseline_cache && c.timed_run->done)
    o.baseline_cache->store(cache_scope, o.device, c.timed_run->of_type("baseline_alone"));
  return {};
}

}  // namespace ptxbench

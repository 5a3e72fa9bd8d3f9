// The eval worker, alone on the GPU with every kernel accounted for: the library alone, then the
// candidate loaded; stream discipline, correctness, counted calls, timing (it stops at the first
// failure); no counted calls when the SASS holds nothing they could find (why_no_counted_calls),
// which spares naive kernels their slowest stage, run instrumented. With a lane gate it runs
// without the timed shapes, holding shared use of the GPU, and the timed worker
// (timed_worker_stage.cpp) times them. With the service's reference pool (judge/caches/reference_pool.h)
// its fixed correctness shapes take pooled sets or make fresh ones before the candidate loads,
// through a ReferenceSession; a violation on that socket is forbidden whatever the worker says.
#include "judge/caches/reference_pool.h"
#include "judge/stages/timed_split.h"
#include "judge/caches/library_timings.h"
#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"
#include "judge/stages/worker_jobs.h"
#include "judge/stages/worker_runs.h"
#include "judge/stages/sass_scan.h"
#include "judge/stages/stage_results.h"
#include "judge/reference_session.h"
#include "judge/target_counts.h"

namespace ptxbench {
namespace {

// The pool's scope: what the inputs and the reference depend on besides shape and seed.
std::string reference_scope(const GpuStageRun& c) {
  return c.problem.workload + "|" + c.problem.workload_options.dump() + "|" + c.gpu.value("gpu", "");
}

// Each fixed correctness shape's seeds: sets from the pool this candidate has not used, and the
// rest made fresh by its worker before the candidate loads (drawn shapes are never pooled).
std::vector<ReferencePlan> plan_references(GpuStageRun& c) {
  std::vector<ReferencePlan> plan;
  ReferencePool& pool = *c.options.reference_pool;
  json not_pooled = json::object();
  for (auto& item : c.eval_job.correctness) {
    if (item.drawn) continue;
    ReferencePlan p;
    p.shape = item.shape.dump();
    if (std::string why = pool.why_not_pooled(c.options.device, reference_scope(c), p.shape); !why.empty()) {
      not_pooled[p.shape] = why;
      continue;
    }
    const int seeds = item.seeds;
    p.pooled = pool.take(c.options.device, reference_scope(c), p.shape, c.record.candidate_sha256, seeds);
    p.fresh = seeds - int(p.pooled.size());
    ReferencePoolPlan worker_plan{{}, p.fresh};
    for (const auto& s : p.pooled) worker_plan.seeds.push_back(s.seed);
    item.pool = std::move(worker_plan);
    plan.push_back(std::move(p));
  }
  if (!not_pooled.empty()) c.record.environment["reference_pool_not_pooled"] = not_pooled;
  return plan;
}

// The hand-overs this worker's checks measured, for the pool's weighing of each shape.
void record_handovers(GpuStageRun& c, const WorkerRun& run) {
  for (const auto& check : run.of_type("check"))
    if (const auto s = check.value("seconds", json::object()); s.contains("pooled_reference"))
      c.options.reference_pool->record_handover(c.options.device, reference_scope(c), check.at("shape").dump(),
                                                s.at("pooled_reference").get<double>());
}

}  // namespace

StageStop run_eval_worker(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  const EvalOptions& o = c.options;
  c.eval_job = eval_job(c.base_job, p, o, c.seed);
  if (const auto* targets = p.targets_for(c.record.arch); targets && c.eval_job.count) {
    c.no_counted_calls = why_no_counted_calls(finished_listing(c.sass), targets->groups);
    if (!c.no_counted_calls.empty()) {
      c.eval_job.count.reset();  // and with it the secretly counted timed sample
      c.no_counted_sample = "not taken: " + c.no_counted_calls;
    }
  }
  c.note("correctness: " + std::to_string(c.eval_job.correctness.size()) + " shapes x " +
         std::to_string(p.correctness_seeds) + " seeds" + (c.no_counted_calls.empty() ? ", counted calls" : "") +
         (o.timing ? ", then timing vs " + p.baseline : ""));
  const bool split = o.lane_gate && o.timing;
  std::optional<ReferenceSession> references;
  if (o.reference_pool && o.lane_gate && !c.record.candidate_sha256.empty())
    references.emplace(plan_references(c), [&c, scope = reference_scope(c)](const std::string& shape,
                                                                            const PooledSet& set,
                                                                            double reference_seconds) {
      // Made before the candidate loaded (a put after the seal is refused): the pool takes it at once.
      c.options.reference_pool->add(c.options.device, scope, shape, set, c.record.candidate_sha256, reference_seconds);
    });
  WorkerLaunch launch = c.launch(std::chrono::seconds(900));
  if (references) launch.reference_session = &*references;
  // One worker times the library alone here (no lane gate): the workspace's stored clean timings
  // go with its job (the split's timed worker gets them in timed_worker_stage.cpp).
  WorkerJob job = split ? shared_part_of(c.eval_job) : c.eval_job;
  if (!split) offer_library_timings(c, job);
  c.eval_run = run_sharing_gpu(o.lane_gate, launch, job);
  if (!split) keep_library_timings(c, *c.eval_run);
  c.record.environment["sandbox"]["worker"] = c.eval_run->sandbox;
  if (references) {  // run_worker finished the session (its listener has stopped)
    json summary = references->summary();
    const auto made = c.eval_run->of_type("reference_pool");
    if (!made.empty()) summary["worker"] = made.front();
    c.record.environment["reference_pool"] = summary;
    if (!c.eval_run->tampered) record_handovers(c, *c.eval_run);
    const auto violations = references->violations();
    if (!violations.empty()) {
      // Whatever the worker reported: only candidate code sends what the harness never does.
      c.record.add_stage(timed_by(
          failed_stage("integrity", Verdict::forbidden,
                       "the reference pool's socket was used by something besides the harness: " + violations.front(),
                       {{"violations", violations}}),
          *c.eval_run));
      return "the reference pool was reached from candidate code";
    }
  }
  if (c.eval_run->shared_pauses > 0) c.record.environment["shared_pauses"] = c.eval_run->shared_pauses;
  if (!c.eval_run->pause_violation.empty()) {
    // Its GPU work ran while another worker timed alone, after it said it had paused (or its pause
    // report was forged): whatever the worker reported (judge/shared_pause_link.h).
    c.record.add_stage(timed_by(failed_stage("integrity", Verdict::forbidden,
                                             "paused for another worker's timing: " + c.eval_run->pause_violation),
                                *c.eval_run));
    return "the worker ran GPU work while paused for another worker's timing";
  }
  if (!c.eval_run->tampered) return {};
  // Candidate code wrote to the result channel: nothing the worker reported can be trusted.
  c.record.add_stage(timed_by(abnormal_end("integrity", *c.eval_run), *c.eval_run));
  return "the worker's result channel was tampered with";
}

}  // namespace ptxbench

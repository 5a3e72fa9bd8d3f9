// The eval worker, alone on the GPU with every kernel accounted for: the library alone, then the
// candidate loaded; stream discipline, correctness, counted calls, timing (it stops at the first
// failure); no counted calls when the SASS holds nothing they could find (why_no_counted_calls),
// which spares naive kernels their slowest stage, run instrumented. With a lane gate it runs
// without the timed shapes, holding shared use of the GPU, and the timed worker
// (timed_worker_stage.cpp) times them.
#include "service/engine/timed_split.h"
#include "service/pipeline/gpu_stages.h"
#include "service/pipeline/worker_events.h"
#include "service/pipeline/worker_jobs.h"
#include "service/pipeline/worker_runs.h"
#include "service/pipeline/sass_scan.h"
#include "service/target_counts.h"

namespace ptxbench {

StageStop run_eval_worker(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  const EvalOptions& o = c.options;
  c.eval_job = eval_job(c.base_job, p, o, c.seed);
  if (const auto* targets = p.targets_for(c.record.arch); targets && c.eval_job.contains("count")) {
    c.no_counted_calls = why_no_counted_calls(finished_listing(c.sass), targets->groups);
    if (!c.no_counted_calls.empty()) {
      c.eval_job.erase("count");  // and with it the secretly counted timed sample
      c.no_counted_sample = "not taken: " + c.no_counted_calls;
    }
  }
  c.note("correctness: " + std::to_string(c.eval_job.at("correctness").size()) + " shapes x " +
         std::to_string(p.correctness_seeds) + " seeds" + (c.no_counted_calls.empty() ? ", counted calls" : "") +
         (o.timing ? ", then timing vs " + p.baseline : ""));
  const bool split = o.lane_gate && o.timing;
  c.eval_run = run_sharing_gpu(o.lane_gate, c.launch(std::chrono::seconds(900)), split ? shared_part_of(c.eval_job) : c.eval_job);
  c.record.environment["sandbox"]["worker"] = c.eval_run->sandbox;
  if (!c.eval_run->tampered) return {};
  // Candidate code wrote to the result channel: nothing the worker reported can be trusted.
  c.record.add_stage(timed_by(abnormal_end("integrity", *c.eval_run), *c.eval_run));
  return "the worker's result channel was tampered with";
}

}  // namespace ptxbench

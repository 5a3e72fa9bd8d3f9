// What the GPU activity audit found (a violation decides the verdict): the timed worker's broken
// rules first, then a violation while timing, else the eval worker's audit.
#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"

namespace ptxbench {

StageStop record_integrity(GpuStageRun& c) {
  EvaluationRecord& r = c.record;
  const WorkerRun& run = *c.eval_run;
  if (c.timed_integrity_failure) r.add_stage(*c.timed_integrity_failure);
  else if (auto timed = c.timed_run ? c.timed_run->stage("integrity") : std::nullopt;
           timed && timed->value("status", "") != "ok")
    r.add_stage(timed_by(from_worker_stage(*timed), *c.timed_run));
  else if (auto ev = run.stage("integrity")) r.add_stage(timed_by(from_worker_stage(*ev), run));
  else if (!c.options.accounting)
    r.add_stage(skipped_stage("integrity", "--no-accounting: the GPU activity was not audited"));
  else
    r.add_stage(skipped_stage("integrity", run.done ? "the worker reported no GPU activity audit"
                                                    : "the worker ended before its GPU activity audit"));
  return {};
}

}  // namespace ptxbench

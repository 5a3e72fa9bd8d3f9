// Whether the candidate's output was produced on the stream it was given, as the eval worker
// reported it; no report without an audit failure means the worker ended early.
#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"

namespace ptxbench {

StageStop record_stream_discipline(GpuStageRun& c) {
  EvaluationRecord& r = c.record;
  const WorkerRun& run = *c.eval_run;
  if (auto sd = run.stage("stream_discipline")) {
    r.add_stage(from_worker_stage(*sd));
  } else if (c.audit_failed()) {
    r.add_stage(skipped_stage("stream_discipline", "the GPU activity audit failed"));
  } else {
    r.add_stage(timed_by(abnormal_end("stream_discipline", run), run));
    c.runtime_failed = true;
  }
  return {};
}

}  // namespace ptxbench

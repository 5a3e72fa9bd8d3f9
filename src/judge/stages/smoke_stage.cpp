// A plain call before the sanitizers: a hang or crash is caught within the normal time limit, not
// the far longer one that kernels slowed down by a sanitizer need. Its failure is the sanitize stage's.
#include "judge/stages/gpu_stages.h"
#include "judge/stages/worker_events.h"
#include "judge/stages/worker_jobs.h"
#include "judge/stages/worker_runs.h"

namespace ptxbench {

StageStop run_smoke_call(GpuStageRun& c) {
  if (!c.options.sanitize) return {};
  const ProblemSpec& p = c.problem;
  c.note("smoke: one call on " + shape_to_string(p.sanitize_shape, p.dims));
  const WorkerRun smoke = run_sharing_gpu(c.options.lane_gate, c.launch(std::chrono::seconds(120)),
                                          single_call_job(c.base_job, p, p.sanitize_shape, false, 1.0, false));
  c.record.environment["sandbox"]["worker"] = smoke.sandbox;
  if (smoke.done) return {};
  auto failure = timed_by(abnormal_end("sanitize", smoke), smoke);
  failure.message = "before the sanitizers, a plain call failed: " + failure.message;
  c.record.add_stage(failure);
  return "the candidate failed at run time";
}

}  // namespace ptxbench

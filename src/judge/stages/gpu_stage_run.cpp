// What the GPU stage units share about one candidate's run: the worker launch and whether it got that far.
#include "judge/stages/gpu_stages.h"

#include "judge/stages/worker_runs.h"

namespace ptxbench {

WorkerLaunch GpuStageRun::launch(std::chrono::seconds timeout) const {
  return worker_launch(options, shared_object, timeout);
}

bool GpuStageRun::audit_failed() const { return record.stage("integrity")->status == StageStatus::failed; }

const char* GpuStageRun::why_not_reached() const {
  return runtime_failed   ? "the candidate failed at run time"
         : audit_failed() ? "the GPU activity audit failed"
                          : "stream discipline failed";
}

}  // namespace ptxbench

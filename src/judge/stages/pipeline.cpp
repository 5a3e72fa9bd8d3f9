// The ordered list of stages for one candidate, and the runner that records later stages as skipped.
#include "judge/stages/pipeline.h"

namespace ptxbench {
namespace {

// The pipeline's description: a stage is one unit in this folder (declared in cpu_stages.h or
// gpu_stages.h) and one line here.
constexpr Stage<CpuStageRun> kCpuStages[] = {
    {"build", run_build},
    {"static", run_static_checks},
};

// A Triton candidate: the scan and the compile-only build (compile/triton_driver.h), then the SASS
// and PTX checks of the cubins it produced. Same stage names, same record.
constexpr Stage<CpuStageRun> kTritonCpuStages[] = {
    {"build", run_triton_build},
    {"static", run_triton_static_checks},
};

constexpr Stage<GpuStageRun> kGpuStages[] = {
    {"", run_smoke_call},
    {"sanitize", run_sanitizers},
    {"", run_eval_worker},
    {"", run_timed_worker},
    {"integrity", record_integrity, /*listed_when_not_started=*/false},
    {"stream_discipline", record_stream_discipline},
    {"correctness", record_correctness},
    {"target_run", record_target_run},
    {"timing", record_timing},
};

}  // namespace

bool run_cpu_stages(CpuStageRun& run) {
  if (run.options.language == Language::triton)
    return run_stages<CpuStageRun>(kTritonCpuStages, run, run.prepared.record);
  return run_stages<CpuStageRun>(kCpuStages, run, run.prepared.record);
}

void run_gpu_stages(GpuStageRun& run) { run_stages<GpuStageRun>(kGpuStages, run, run.record); }

void skip_gpu_stages(EvaluationRecord& r, const std::string& why) { skip_stages<GpuStageRun>(kGpuStages, r, why); }

}  // namespace ptxbench

// The stage units judge() runs on the GPU worker, one call at a time per Evaluator. Their order is
// the pipeline's description (pipeline.cpp): the worker units run the jobs, and the units after
// them record what the worker reported.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "compile/sass_listing.h"
#include "core/json.h"
#include "core/worker_protocol.h"
#include "judge/evaluator.h"
#include "judge/stages/stage.h"
#include "judge/worker_client.h"
#include "problems/problem_spec.h"

namespace ptxbench {

// What the GPU stage units of one candidate share: its inputs, and the worker runs that later
// units read.
struct GpuStageRun {
  const ProblemSpec& problem;
  const EvalOptions& options;
  const json& gpu;  // the worker's --info report
  const std::filesystem::path& shared_object;
  PreparedCandidate::SassScan* sass;  // null without cuobjdump
  EvaluationRecord& record;
  const ProgressFn& progress;
  uint64_t seed;       // secret, fresh per candidate (worker_jobs.h)
  WorkerJob base_job;  // what every job of this candidate carries
  // Tensor maps the kernels make on the device, sized by the build (Triton: triton_gpu_prepare.h),
  // for the kernels whose counts carry no map the worker captured.
  json device_tensor_maps = json::object();
  // SASS of cubins the worker names in its counts ("<image>/<kernel>"; Triton: triton_gpu_prepare.h).
  SassListing image_listing{};

  WorkerJob eval_job{};                  // run_eval_worker's
  std::optional<WorkerRun> eval_run{};   // with a lane gate, the eval job's shared part (judge/stages/timed_split.h)
  std::optional<WorkerRun> timed_run{};  // with a lane gate, its timed part, the GPU held alone
  double timed_exclusive_seconds =
      0;  // with the GPU alone: the clean timings, and the timing grant to the worker's end
  double baseline_cache_wait_seconds = 0;  // for another timed worker's clean timings of the same shapes
  bool runtime_failed = false;             // a unit recorded that the worker ended early
  // The timed worker broke the rules (its channel tampered with, timed without the harness's
  // grant): the integrity stage that decides the verdict; the shared part's stages still stand.
  std::optional<StageResult> timed_integrity_failure{};
  std::string no_counted_calls{};   // why the eval job counts no call (target_counts.h; "" = it does)
  std::string no_counted_sample{};  // why no timed sample is counted ("" = one is)

  void note(const std::string& line) const {
    if (progress) progress(line);
  }
  WorkerLaunch launch(std::chrono::seconds timeout) const;
  // The worker whose timings the record keeps.
  const WorkerRun& timing_source() const { return timed_run ? *timed_run : *eval_run; }
  bool audit_failed() const;  // the integrity stage failed: a GPU-activity violation
  // Why a stage that needs the candidate disciplined and running was not reached.
  const char* why_not_reached() const;
};

StageStop run_smoke_call(GpuStageRun& c);             // smoke_stage.cpp
StageStop run_sanitizers(GpuStageRun& c);             // sanitize_stage.cpp
StageStop run_sanitizers_after_eval(GpuStageRun& c);  // sanitize_stage.cpp
StageStop run_eval_worker(GpuStageRun& c);            // eval_worker_stage.cpp
StageStop run_timed_worker(GpuStageRun& c);           // timed_worker_stage.cpp
StageStop record_integrity(GpuStageRun& c);           // integrity_stage.cpp
StageStop record_stream_discipline(GpuStageRun& c);   // stream_discipline_stage.cpp
StageStop record_correctness(GpuStageRun& c);         // correctness_stage.cpp
StageStop record_target_run(GpuStageRun& c);          // target_run_stage.cpp
StageStop record_timing(GpuStageRun& c);              // timing_stage.cpp

}  // namespace ptxbench

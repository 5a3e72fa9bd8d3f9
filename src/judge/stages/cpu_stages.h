// The stage units prepare() runs, on the CPU and on any thread: the build in the sandbox, then the
// static checks. Their order is the pipeline's description (pipeline.cpp).
#pragma once
#include <filesystem>
#include <string>

#include "compile/nvcc_driver.h"
#include "compile/triton_driver.h"
#include "judge/evaluator.h"
#include "judge/stages/stage.h"
#include "problems/problem_spec.h"

namespace ptxbench {

// What the CPU stage units of one candidate share.
struct CpuStageRun {
  const ProblemSpec& problem;
  const EvalOptions& options;
  const ArchTargets& targets;
  const std::filesystem::path& candidate;
  const std::string& source;
  const std::filesystem::path& build_dir;  // this build's own folder in the workspace
  const ProgressFn& progress;
  PreparedCandidate& prepared;  // the record, and the SASS scan the static checks start
  BuildResult build{};          // run_build's, for the static checks
  TritonBuildResult triton{};   // run_triton_build's (Language::triton)

  void note(const std::string& line) const {
    if (progress) progress(line);
  }
};

StageStop run_build(CpuStageRun& c);                 // build_stage.cpp
StageStop run_static_checks(CpuStageRun& c);         // static_stage.cpp
StageStop run_triton_build(CpuStageRun& c);          // triton_stages.cpp
StageStop run_triton_static_checks(CpuStageRun& c);  // triton_stages.cpp

}  // namespace ptxbench

// How the evaluator starts ptxbench-worker: the launch (its sandbox may read the candidate's build
// folder), a run that holds shared use of the GPU while it lasts (with a lane gate), and a run
// under compute-sanitizer or ncu, started in the background with the tool's own log.
#pragma once
#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/worker_protocol.h"
#include "judge/evaluator.h"
#include "judge/worker_client.h"

namespace ptxbench {

// `shared_object` empty: the --info check, which loads no candidate.
WorkerLaunch worker_launch(const EvalOptions& o, const std::filesystem::path& shared_object,
                           std::chrono::seconds timeout, std::vector<std::string> wrapper = {});

// `gate` null: this evaluator owns the GPU. An eval job with the activity monitor and no timed
// shapes runs pausable (judge/shared_pause_link.h): the run says how often it paused and what its
// pauses found against it (WorkerRun::pause_violation).
WorkerRun run_sharing_gpu(GpuLaneGate* gate, const WorkerLaunch& launch, const WorkerJob& job);

// The tool's own output (--log-file), which the candidate cannot write to, with the run.
struct ToolRun {
  WorkerRun run;
  std::string log;
};

// `wrapper`: the tool's command prefix (probes/sanitizer_probe.h, probes/ncu_probe.h).
std::future<ToolRun> start_tool_run(const EvalOptions& o, const std::filesystem::path& shared_object,
                                    std::vector<std::string> wrapper, WorkerJob job);

}  // namespace ptxbench

// The CandidateExecutor of the fault-injection tests: the job's payload says what the simulated
// candidate does ({"build": "ok"|"compile_error", "fault": ..., "fault_attempts": N, "ms": N});
// its GPU stages run as ptxbench-fake-gpu-worker processes through the real worker client,
// under the GPU's gate (shared, then timed), and their ends are read the way the Evaluator reads
// a real worker's: SIGKILL from outside and harness errors (OOM) are infra faults, a CUDA error
// or a timeout is the candidate's runtime_error (suspicious: the GPU is probed before it counts),
// a result channel that fails verification is `forbidden` (the Evaluator's verdict for it).
// With `pausable_shared`, the shared stage runs pausable as the real eval worker's shared part does
// (judge/stages/worker_runs.cpp): paused for a timed stage's window, forbidden when its pause says so
// (judge/shared_pause_link.h); a timed stage whose window cannot be trusted is run again, draining
// (judge/stages/timed_worker_stage.cpp), and its result says `timing_taken_again`. The payload's
// "pause_fault" is the shared stage's (tests/service/fake_gpu_worker.cpp), "call_ms" its call length.
// With `pausable_timed_start` too, the timed stage's start runs pausable (EvalOptions::pausable_timed_start):
// paused for another timed stage's window, its "start_pause_fault" played as a shared stage's, and
// `forbidden` when its pause says so.
#pragma once
#include <cstdlib>
#include <filesystem>

#include "judge/worker_client.h"
#include "service/engine/candidate_executor.h"
#include "service/engine/service_engine.h"
#include "service/health/gpu_monitor.h"

namespace ptxbench::test {

// How a ptxbench-fake-gpu-worker is launched: as the real worker is (its sandbox, the signed
// channel), with the simulated GPUs' state folder ($PTXBENCH_FAKE_GPU_STATE of this process)
// writable and named in its environment.
WorkerLaunch fake_worker_launch(const std::filesystem::path& fake_worker, const std::filesystem::path& job_dir,
                                std::chrono::seconds timeout);

class SimulatedExecutor final : public CandidateExecutor {
 public:
  SimulatedExecutor(std::filesystem::path fake_worker, std::filesystem::path job_dir,
                    std::chrono::milliseconds deadline, bool pausable_shared = false,
                    bool pausable_timed_start = false);
  PreparedJob prepare(const LeasedJob& job) override;
  json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) override;
  bool suspicious(const json& result) const override;
  std::string throttled_during_timing(const json& result) const override;

 private:
  std::filesystem::path worker_, job_dir_;
  std::chrono::milliseconds deadline_;
  bool pausable_shared_, pausable_timed_start_;
};

// The engine of the fault harnesses (tests/service, tests/redis): two simulated GPUs, leases of
// `lease_ms` renewed `heartbeats_per_lease` times per lease, a fast poll and a fast recovery.
EngineOptions simulated_engine_options(int shared_lanes, int cpu_jobs, int lease_ms, int heartbeats_per_lease);
MonitorOptions simulated_monitor_options();

// The simulated GPUs' state under `dir`/gpus for every fake worker this process starts (the
// worker reads PTXBENCH_FAKE_GPU_STATE).
struct FakeGpus {
  explicit FakeGpus(const std::filesystem::path& dir) { setenv("PTXBENCH_FAKE_GPU_STATE", (dir / "gpus").c_str(), 1); }
};

}  // namespace ptxbench::test

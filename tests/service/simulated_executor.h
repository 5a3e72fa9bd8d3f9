// The CandidateExecutor of the fault-injection tests: the job's payload says what the simulated
// candidate does ({"build": "ok"|"compile_error", "fault": ..., "fault_attempts": N, "ms": N});
// its GPU stages run as ptxbench-fake-gpu-worker processes through the real worker client,
// under the GPU's gate (shared, then timed), and their ends are read the way the Evaluator reads
// a real worker's: SIGKILL from outside and harness errors (OOM) are infra faults, a CUDA error
// or a timeout is the candidate's runtime_error (suspicious: the GPU is probed before it counts).
#pragma once
#include <filesystem>

#include "service/engine/candidate_executor.h"

namespace ptxbench::test {

class SimulatedExecutor final : public CandidateExecutor {
 public:
  SimulatedExecutor(std::filesystem::path fake_worker, std::filesystem::path job_dir, std::chrono::milliseconds deadline);
  PreparedJob prepare(const LeasedJob& job) override;
  json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) override;
  bool suspicious(const json& result) const override;
  std::string throttled_during_timing(const json& result) const override;

 private:
  std::filesystem::path worker_, job_dir_;
  std::chrono::milliseconds deadline_;
};

}  // namespace ptxbench::test

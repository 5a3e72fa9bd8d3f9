// What the service engine runs for one queued job, in its two phases: prepare() on the bounded
// CPU pool (build and static checks; never touches a GPU) and run_on_gpu() on one of a GPU's
// lanes, holding the GPU's gate (shared for the stages that time nothing, exclusive for timing).
// The real one is the Evaluator (evaluator_executor.h); the fault-injection tests use a
// simulated GPU stage behind the same interface. Faults of the harness or the machine are
// thrown as InfraFault (re-queued); everything about the candidate is in the result.
#pragma once
#include <memory>
#include <string>

#include "core/json.h"
#include "judge/gpu_lane_gate.h"
#include "service/queue/job_queue.h"

namespace ptxbench {

struct PreparedJob {
  bool needs_gpu = false;
  json result;                  // the finished result when !needs_gpu
  std::shared_ptr<void> state;  // the executor's own (a built candidate)
};

class CandidateExecutor {
 public:
  virtual ~CandidateExecutor() = default;
  virtual PreparedJob prepare(const LeasedJob& job) = 0;
  virtual json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) = 0;
  // A result the GPU, not the candidate, may have caused (a crash, a CUDA error, a timeout): the
  // monitor probes the GPU before it is stored, and an unhealthy GPU turns it into an infra fault.
  virtual bool suspicious(const json& result) const = 0;
  // Non-empty when a timed sample ran throttled: the GPU is excluded from timing, the job re-run.
  virtual std::string throttled_during_timing(const json& result) const = 0;
};

}  // namespace ptxbench

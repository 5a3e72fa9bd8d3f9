// The simulated GPU stage without worker processes, for the reward API's load tests
// (service_http_harness --inline-gpu): the same payloads as SimulatedExecutor's ({"build",
// "wrong", "fault", "ms"}) and the same result shape, but each GPU stage is a sleep of "ms" on the
// engine's lane under the GPU's gate (shared, then exclusive for the timed stage), in-process. What
// it leaves out is the fake worker's process, sandbox and signed channel (the fault tests cover
// those): what a load test then measures is the API, the queue and the engine's scheduling.
#pragma once
#include "service/engine/candidate_executor.h"

namespace ptxbench::test {

class InlineGpuExecutor final : public CandidateExecutor {
 public:
  PreparedJob prepare(const LeasedJob& job) override;
  json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) override;
  bool suspicious(const json& result) const override;
  std::string throttled_during_timing(const json& result) const override;
};

}  // namespace ptxbench::test

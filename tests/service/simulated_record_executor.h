// The simulated GPU stage behind the reward API (service_http_harness): a candidate submitted over
// HTTP carries, as its source, what the simulated candidate does:
//   // simulated: {"fault": "", "ms": 5, "build": "ok", "speedup": 1.4, "target": true, "wrong": false}
// (every field optional; the fault names of fault_mix.h). The SimulatedExecutor runs it (its
// stages as ptxbench-fake-gpu-worker processes through the real worker client, sandbox and gate;
// or InlineGpuExecutor, in-process, for the load tests), and its result is turned into an evaluation record, so the
// API's reward view reads it as it reads a real one: compile_error, incorrect, runtime_error, forbidden, or correct
// with the given speedup on one shape and target_executed as given.
#pragma once
#include "simulated_executor.h"

namespace ptxbench::test {

// The simulated payload of an API job (its "source" parsed); a source without the marker is a
// candidate that builds and is correct at speedup 1.
json simulated_spec_of(const json& api_payload);

class SimulatedRecordExecutor final : public CandidateExecutor {
 public:
  // `inner`: a SimulatedExecutor, or an InlineGpuExecutor (inline_gpu_executor.h) for the load tests.
  explicit SimulatedRecordExecutor(CandidateExecutor& inner) : inner_(inner) {}
  PreparedJob prepare(const LeasedJob& job) override;
  json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) override;
  bool suspicious(const json& result) const override;
  std::string throttled_during_timing(const json& result) const override;

 private:
  CandidateExecutor& inner_;
};

}  // namespace ptxbench::test

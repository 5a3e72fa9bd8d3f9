// How a GPU stage shares its GPU with other lanes: a stage that times nothing (smoke, sanitizers,
// correctness, counted calls) holds shared use while its worker runs; the timed stage holds
// exclusive use, so nothing else runs on that GPU while samples are taken. The Evaluator holds
// one when EvalOptions::lane_gate is set (the service engine, engine/gpu_gate.h); without one it
// owns the whole GPU, as a single sequential lane.
#pragma once
#include <memory>
#include <string>

namespace ptxbench {

class GpuLaneGate {
 public:
  virtual ~GpuLaneGate() = default;
  // Blocks until granted; the use lasts as long as the returned handle.
  virtual std::shared_ptr<void> shared_use() = 0;
  // Blocks until every shared use on this GPU has ended and timing is allowed on it; throws
  // InfraFault when the GPU stays excluded from timing (throttled, off its calibration) too long.
  virtual std::shared_ptr<void> exclusive_use() = 0;
};

}  // namespace ptxbench

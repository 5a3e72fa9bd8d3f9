// How a GPU stage shares its GPU with other lanes: a stage that times nothing (smoke, sanitizers,
// correctness, counted calls) holds shared use while its worker runs; the timed stage holds
// exclusive use from just before its first sample to its end, so nothing else runs on that GPU
// while samples are taken. The Evaluator holds
// one when EvalOptions::lane_gate is set (the service engine, engine/gpu_gate.h); without one it
// owns the whole GPU, as a single sequential lane.
#pragma once
#include <chrono>
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

// The timed worker's use of its GPU: shared while the worker starts (sandbox, CUDA context,
// library plans, inputs, warm-up calls), exclusive from the moment it asks, just before its first
// timed sample (WorkerLaunch::exclusive_gpu), to its end. The exclusive use replaces the shared
// one (holding both would wait on itself). become_exclusive() runs on the handshake's thread; the
// owner reads and destroys this only after the worker has ended.
class TimedWorkerUse {
 public:
  explicit TimedWorkerUse(GpuLaneGate& gate) : gate_(gate), use_(gate.shared_use()) {}
  void become_exclusive() {
    use_.reset();
    use_ = gate_.exclusive_use();
    granted_ = std::chrono::steady_clock::now();
    exclusive_ = true;
  }
  bool exclusive() const { return exclusive_; }
  // Seconds from the grant to now (0 if never granted): the worker's time with the GPU alone.
  double exclusive_seconds() const {
    return exclusive_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count() : 0;
  }

 private:
  GpuLaneGate& gate_;
  std::shared_ptr<void> use_;
  bool exclusive_ = false;
  std::chrono::steady_clock::time_point granted_;
};

}  // namespace ptxbench

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
// timed sample (WorkerLaunch::exclusive_gpu), to its end; a worker that times the library alone
// first holds it exclusively for those clean timings too, and shared again (become_shared) while
// its candidate loads. Each use replaces the other (holding both would wait on itself). These run
// on the handshake's thread; the owner reads and destroys this only after the worker has ended.
class TimedWorkerUse {
 public:
  explicit TimedWorkerUse(GpuLaneGate& gate) : gate_(gate), use_(gate.shared_use()) {}
  void become_exclusive() {
    use_.reset();
    use_ = gate_.exclusive_use();
    granted_ = std::chrono::steady_clock::now();
    exclusive_ = true;
  }
  void become_shared() {
    if (!exclusive_) return;
    held_before_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count();
    exclusive_ = false;
    use_.reset();
    use_ = gate_.shared_use();
  }
  bool exclusive() const { return exclusive_; }
  // Seconds with the GPU alone: every exclusive period, the current one up to now.
  double exclusive_seconds() const {
    return held_before_ +
           (exclusive_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count() : 0);
  }

 private:
  GpuLaneGate& gate_;
  std::shared_ptr<void> use_;
  bool exclusive_ = false;
  double held_before_ = 0;
  std::chrono::steady_clock::time_point granted_;
};

}  // namespace ptxbench

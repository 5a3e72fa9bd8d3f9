// How a GPU stage shares its GPU with other lanes: a stage that times nothing (smoke, sanitizers,
// correctness, counted calls) holds shared use while its worker runs; the timed stage holds
// exclusive use from just before its first sample to its end, so nothing else runs on that GPU
// while samples are taken. A shared worker that can pause at its next call boundary
// (core/shared_pause.h) registers with its use: the exclusive use then pauses it instead of waiting
// for it to end, and holds its GPU work against the exclusive window when it resumes it. The
// Evaluator holds one when EvalOptions::lane_gate is set (the service engine, engine/gpu_gate.h);
// without one it owns the whole GPU, as a single sequential lane.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "judge/pause_overlap.h"

namespace ptxbench {

// What resuming a paused worker found: whether the exclusive window it was paused for can be
// trusted ("" = yes; else why not, and the timing taken in it is discarded).
struct PauseCheck {
  std::string untrusted;
};

// A shared-lane worker that pauses at its next call boundary when asked (judge/shared_pause_link.h).
class PausableSharedWorker {
 public:
  virtual ~PausableSharedWorker() = default;
  virtual void ask_to_pause() = 0;  // returns at once
  // Blocks until the worker acknowledged (true) or `until` passed, or it can no longer answer (false).
  virtual bool wait_until_paused(std::chrono::steady_clock::time_point until) = 0;
  // Lets it go on. `window`: the exclusive window it was paused for (none: the pause was given up),
  // its GPU work held against it.
  virtual PauseCheck resume(const std::optional<ExclusiveWindow>& window) = 0;
};

class GpuLaneGate {
 public:
  virtual ~GpuLaneGate() = default;
  // Blocks until granted; the use lasts as long as the returned handle.
  virtual std::shared_ptr<void> shared_use() = 0;
  // The same for a worker that can pause (it must outlive the returned handle).
  virtual std::shared_ptr<void> shared_use(PausableSharedWorker* /*pausable*/) { return shared_use(); }
  // The same for a timed worker while it starts (it will ask for exclusive use soon; it cannot pause).
  virtual std::shared_ptr<void> timed_start_use() { return shared_use(); }
  // The same for a timed worker that can pause while it starts (until its first request for the
  // GPU alone; it must outlive the returned handle): paused, not waited for, by another's request.
  virtual std::shared_ptr<void> timed_start_use(PausableSharedWorker* /*pausable*/) { return timed_start_use(); }
  // Blocks until every shared use on this GPU has ended or paused, and timing is allowed on it;
  // throws InfraFault when the GPU stays excluded from timing (throttled, off its calibration) too long.
  virtual std::shared_ptr<void> exclusive_use() = 0;
  // The same, waiting for every shared use to end (no pause): the timing of a window that could not
  // be trusted is taken again this way.
  virtual std::shared_ptr<void> exclusive_use_draining() { return exclusive_use(); }
  // Ends an exclusive use (resets `use`): the workers paused for it go on, and their GPU work is held
  // against its window; "" when the window can be trusted, else why not.
  virtual std::string end_exclusive_use(std::shared_ptr<void>& use) {
    use.reset();
    return "";
  }
  // While an exclusive use is held: how many shared workers are paused for it (their processes stay).
  virtual int paused_workers() const { return 0; }
};

// The timed worker's use of its GPU: shared while the worker starts (sandbox, CUDA context,
// library plans, inputs, warm-up calls), exclusive from the moment it asks, just before its first
// timed sample (WorkerLaunch::exclusive_gpu), to its end; a worker that times the library alone
// first holds it exclusively for those clean timings too, and shared again (become_shared) while
// its candidate loads. Each use replaces the other (holding both would wait on itself). These run
// on the handshake's thread; the owner reads and destroys this only after the worker has ended.
//
// `draining`: exclusive use only once every shared use ended (the timing of a window that could not
// be trusted taken again). end() closes the exclusive window and says whether every window it held
// can be trusted; call it once the worker has ended. `pausable`: the worker's pause link, through
// which another timed worker's request pauses it while it starts, until its own first request (it
// closes its pause socket then: a later shared period, after the clean timings, cannot pause).
class TimedWorkerUse {
 public:
  explicit TimedWorkerUse(GpuLaneGate& gate, bool draining = false, PausableSharedWorker* pausable = nullptr)
      : gate_(gate), draining_(draining), use_(pausable ? gate.timed_start_use(pausable) : gate.timed_start_use()) {}
  void become_exclusive() {
    use_.reset();
    use_ = draining_ ? gate_.exclusive_use_draining() : gate_.exclusive_use();
    granted_ = std::chrono::steady_clock::now();
    exclusive_ = true;
  }
  void become_shared() {
    if (!exclusive_) return;
    held_before_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count();
    exclusive_ = false;
    note_window(gate_.end_exclusive_use(use_));
    use_ = gate_.timed_start_use();
  }
  // After the worker ended: "" when no shared worker's GPU work ran in its exclusive windows, else
  // why (its timing is taken again). exclusive() still says whether it was granted at its end.
  std::string end() {
    if (exclusive_) {
      held_before_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count();
      ended_exclusive_ = true;
      exclusive_ = false;
      note_window(gate_.end_exclusive_use(use_));
    }
    use_.reset();
    return untrusted_;
  }
  bool exclusive() const { return exclusive_ || ended_exclusive_; }
  int paused_beside() const { return exclusive_ ? gate_.paused_workers() : 0; }
  // Seconds with the GPU alone: every exclusive period, the current one up to now.
  double exclusive_seconds() const {
    return held_before_ +
           (exclusive_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - granted_).count() : 0);
  }

 private:
  void note_window(const std::string& why) {
    if (!why.empty() && untrusted_.empty()) untrusted_ = why;
  }
  GpuLaneGate& gate_;
  const bool draining_;
  std::shared_ptr<void> use_;
  bool exclusive_ = false, ended_exclusive_ = false;
  std::string untrusted_;
  double held_before_ = 0;
  std::chrono::steady_clock::time_point granted_;
};

}  // namespace ptxbench

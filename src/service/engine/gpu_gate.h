// One GPU's gate: shared uses for the stages that time nothing, an exclusive use for the timed
// stage (waiting for the shared ones to end, and holding new ones back meanwhile, so timing is
// never starved; a shared worker that can pause is paused at its next call boundary instead, once
// the others ended, and its GPU work is held against the exclusive window when it resumes: a
// window it ran in is reported untrusted; a pause not acknowledged within `pause_timeout` is given
// up and the gate waits for that worker to end, as without pausing), and the GPU's dispatch state set by the
// reliability monitor: paused (no new job starts), excluded from timing (throttled or off its calibration) and out of
// service (it stayed unhealthy through every restart: no job runs on it again in this process). It also measures the
// fraction of wall time in which any stage held the GPU (the service's own busy figure; NVML's
// utilization is reported beside it where the driver is there).
#pragma once
#include <array>
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "judge/gpu_lane_gate.h"

namespace ptxbench {

struct GpuGateSnapshot {
  int device = 0;
  int shared_users = 0;
  bool exclusive = false;
  bool paused = false;
  std::string pause_reason;
  bool timing_excluded = false;
  std::string timing_exclusion_reason;
  bool out_of_service = false;
  std::string out_of_service_reason;
  double held_seconds = 0, open_seconds = 0;  // any use held / since the gate opened
  double exclusive_seconds = 0;
  // A timed stage waiting for the shared ones to end (new ones held back): the price of exclusivity.
  double draining_seconds = 0;
  // What the drain waited on, each second counted once: another timed worker still starting that
  // cannot pause, else a shared worker that cannot pause (sanitizers, smoke runs, workers without
  // the activity monitor), else only the pausable workers' acknowledgements (a pausable timed
  // worker's start among them).
  double draining_on_timed_start_seconds = 0, draining_on_unpausable_seconds = 0, draining_on_pause_seconds = 0;
  // Seconds a shared worker that cannot pause was held back while a timed worker started
  // (hold_unpausable_for_timed_start), summed over those held.
  double held_back_seconds = 0;
  int timed_starting = 0;             // timed workers starting now (shared use, before they ask for the GPU alone)
  long long paused_timed_starts = 0;  // pauses of a starting timed worker for another's exclusive use
  long long exclusive_grants = 0;
  int paused_users = 0;                                                     // shared uses paused for the exclusive one
  long long paused_grants = 0, pause_fallbacks = 0, untrusted_windows = 0;  // grants with paused workers, ...
};

class GpuGate final : public GpuLaneGate {
 public:
  // `pause_timeout` 0: shared workers are never paused (every exclusive use drains).
  // `hold_unpausable_for_timed_start`: a shared worker that cannot pause does not start while a
  // timed worker starts, so that worker's request will not wait for it to end.
  GpuGate(int device, std::chrono::milliseconds max_timing_wait,
          std::chrono::milliseconds pause_timeout = std::chrono::seconds(2),
          bool hold_unpausable_for_timed_start = false);
  std::shared_ptr<void> shared_use() override;
  std::shared_ptr<void> shared_use(PausableSharedWorker* pausable) override;
  std::shared_ptr<void> timed_start_use() override;
  std::shared_ptr<void> timed_start_use(PausableSharedWorker* pausable) override;
  std::shared_ptr<void> exclusive_use() override;
  std::shared_ptr<void> exclusive_use_draining() override;
  std::string end_exclusive_use(std::shared_ptr<void>& use) override;
  int paused_workers() const override;

  int device() const { return device_; }
  void set_paused(bool paused, const std::string& reason = "");
  void set_timing_excluded(bool excluded, const std::string& reason = "");
  void set_out_of_service(const std::string& reason);  // for good; it also wakes the lanes
  // Blocks while the GPU is paused (and in service); false when `stop` became true meanwhile.
  bool wait_until_dispatchable(const std::atomic<bool>& stop);
  void wake_all();  // after `stop` changed
  GpuGateSnapshot snapshot() const;

 private:
  struct ExclusiveHold;
  std::shared_ptr<void> take_exclusive(bool pause);
  enum class SharedKind { unpausable, pausable, timed_start };
  std::shared_ptr<void> take_shared(PausableSharedWorker* pausable, SharedKind kind);
  // Pauses every registered worker (the lock held on entry and on return, released meanwhile);
  // false when some did not acknowledge in time (those that did are then resumed).
  bool pause_shared_workers(std::unique_lock<std::mutex>& lock);
  std::string resume_paused(const std::optional<ExclusiveWindow>& window);  // the lock not held
  void release_shared(PausableSharedWorker* pausable, SharedKind kind);
  std::string release_exclusive(uint64_t granted_ns);
  void account_locked(std::chrono::steady_clock::time_point now);
  // What a drain waits on now (the snapshot's split): a timed worker starting, else a worker that
  // cannot pause, else the acknowledgements.
  enum class DrainCause { timed_start = 0, unpausable = 1, pause = 2 };
  bool draining_locked() const;
  DrainCause drain_cause_locked() const;
  std::string timing_wait_failure() const;

  const int device_;
  const std::chrono::milliseconds max_timing_wait_, pause_timeout_;
  const bool hold_unpausable_for_timed_start_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int shared_ = 0, exclusive_waiting_ = 0;
  // Of shared_: timed workers starting (those of them that cannot pause), workers that cannot pause.
  int timed_starting_ = 0, timed_starting_unpausable_ = 0, unpausable_ = 0;
  bool exclusive_ = false, paused_ = false, timing_excluded_ = false, out_of_service_ = false;
  bool pausing_ = false;  // an exclusive use is pausing the shared workers
  int touching_ = 0;      // pauses or resumes under way: a registered worker's use may not end meanwhile
  int paused_count_ = 0;
  std::map<PausableSharedWorker*, bool> pausable_;        // registered shared users -> paused now
  std::vector<PausableSharedWorker*> paused_for_window_;  // those the current exclusive use paused
  long long paused_grants_ = 0, pause_fallbacks_ = 0, untrusted_windows_ = 0, paused_timed_starts_ = 0;
  std::set<PausableSharedWorker*> timed_start_pausables_;  // of pausable_: timed workers starting
  std::string pause_reason_, timing_reason_, out_of_service_reason_;
  std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now(), last_change_ = opened_;
  double held_ = 0, exclusive_held_ = 0, draining_ = 0;
  std::array<double, 3> draining_on_{};  // by DrainCause
  double held_back_ = 0;
  long long grants_ = 0;
};

}  // namespace ptxbench

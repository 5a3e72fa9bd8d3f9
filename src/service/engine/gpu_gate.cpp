// One GPU's readers-writer gate: shared uses for untimed stages, an exclusive one for timing.
#include "service/engine/gpu_gate.h"

#include "core/timestamp.h"
#include "judge/infra_fault.h"

namespace ptxbench {

using Clock = std::chrono::steady_clock;

// The exclusive use's handle: its release resumes the workers paused for it and checks its window.
struct GpuGate::ExclusiveHold {
  GpuGate* gate;
  uint64_t granted_ns;
  std::string* window_report = nullptr;  // set by end_exclusive_use: what the release found
  ~ExclusiveHold() {
    std::string why = gate->release_exclusive(granted_ns);
    if (window_report) *window_report = std::move(why);
  }
};

GpuGate::GpuGate(int device, std::chrono::milliseconds max_timing_wait, std::chrono::milliseconds pause_timeout,
                 bool hold_unpausable_for_timed_start)
    : device_(device),
      max_timing_wait_(max_timing_wait),
      pause_timeout_(pause_timeout),
      hold_unpausable_for_timed_start_(hold_unpausable_for_timed_start) {}

void GpuGate::account_locked(Clock::time_point now) {
  const double dt = std::chrono::duration<double>(now - last_change_).count();
  if (shared_ > 0 || exclusive_) held_ += dt;
  if (exclusive_) exclusive_held_ += dt;
  if (draining_locked()) {
    draining_ += dt;
    draining_on_[static_cast<int>(drain_cause_locked())] += dt;
  }
  last_change_ = now;
}

bool GpuGate::draining_locked() const { return !exclusive_ && exclusive_waiting_ > 0; }

GpuGate::DrainCause GpuGate::drain_cause_locked() const {
  return timed_starting_unpausable_ > 0 ? DrainCause::timed_start
         : unpausable_ > 0              ? DrainCause::unpausable
                                        : DrainCause::pause;
}

std::shared_ptr<void> GpuGate::shared_use() { return take_shared(nullptr, SharedKind::unpausable); }

std::shared_ptr<void> GpuGate::shared_use(PausableSharedWorker* pausable) {
  return take_shared(pausable, pausable ? SharedKind::pausable : SharedKind::unpausable);
}

std::shared_ptr<void> GpuGate::timed_start_use() { return take_shared(nullptr, SharedKind::timed_start); }

std::shared_ptr<void> GpuGate::timed_start_use(PausableSharedWorker* pausable) {
  return take_shared(pausable, SharedKind::timed_start);
}

std::shared_ptr<void> GpuGate::take_shared(PausableSharedWorker* pausable, SharedKind kind) {
  std::unique_lock lock(mu_);
  const auto asked = Clock::now();
  const bool holdable = hold_unpausable_for_timed_start_ && kind == SharedKind::unpausable;
  bool held = false;
  // Writer preference: a waiting timed stage goes first. A worker that cannot pause also waits for
  // the timed workers starting now (when asked to): each would otherwise wait for it to end.
  cv_.wait(lock, [&] {
    if (exclusive_ || exclusive_waiting_ > 0) return false;
    if (holdable && timed_starting_ > 0) {
      held = true;
      return false;
    }
    return true;
  });
  const auto now = Clock::now();
  account_locked(now);
  if (held) held_back_ += std::chrono::duration<double>(now - asked).count();
  ++shared_;
  if (kind == SharedKind::timed_start) {
    ++timed_starting_;
    if (pausable) timed_start_pausables_.insert(pausable);
    else ++timed_starting_unpausable_;
  }
  if (kind == SharedKind::unpausable) ++unpausable_;
  if (pausable) pausable_[pausable] = false;
  return std::shared_ptr<void>(this, [pausable, kind](GpuGate* g) { g->release_shared(pausable, kind); });
}

std::shared_ptr<void> GpuGate::exclusive_use() { return take_exclusive(pause_timeout_.count() > 0); }

std::shared_ptr<void> GpuGate::exclusive_use_draining() { return take_exclusive(false); }

std::string GpuGate::timing_wait_failure() const {
  const std::string why = timing_excluded_ ? "excluded from timing (" + timing_reason_ + ")" : "busy";
  return "GPU " + std::to_string(device_) + " stayed " + why + " for " +
         std::to_string(max_timing_wait_.count() / 1000) + " s: the timed stage moves to another attempt";
}

bool GpuGate::pause_shared_workers(std::unique_lock<std::mutex>& lock) {
  std::vector<PausableSharedWorker*> workers;
  for (const auto& [w, paused] : pausable_) workers.push_back(w);
  ++touching_;
  lock.unlock();
  for (auto* w : workers) w->ask_to_pause();
  const auto until = Clock::now() + pause_timeout_;
  std::vector<PausableSharedWorker*> acked;
  for (auto* w : workers)
    if (w->wait_until_paused(until)) acked.push_back(w);
  const bool all = acked.size() == workers.size();
  if (!all)  // given up: those that paused go on, and the exclusive use waits for every one to end
    for (auto* w : acked) w->resume(std::nullopt);
  lock.lock();
  --touching_;
  if (all)
    for (auto* w : acked) {
      pausable_[w] = true;
      ++paused_count_;
      paused_for_window_.push_back(w);
      paused_timed_starts_ += timed_start_pausables_.count(w);
    }
  cv_.notify_all();
  return all;
}

std::string GpuGate::resume_paused(const std::optional<ExclusiveWindow>& window) {
  std::vector<PausableSharedWorker*> paused;
  {
    std::lock_guard lock(mu_);
    paused.swap(paused_for_window_);
    ++touching_;
  }
  std::string why;
  for (auto* w : paused)
    if (std::string u = w->resume(window).untrusted; why.empty()) why = std::move(u);
  std::lock_guard lock(mu_);
  --touching_;
  for (auto* w : paused)
    if (auto it = pausable_.find(w); it != pausable_.end() && it->second) {
      it->second = false;
      --paused_count_;
    }
  cv_.notify_all();
  return why;
}

std::shared_ptr<void> GpuGate::take_exclusive(bool pause) {
  std::unique_lock lock(mu_);
  account_locked(Clock::now());
  ++exclusive_waiting_;
  const auto deadline = Clock::now() + max_timing_wait_;
  auto resume_mine = [&] {  // the workers this request paused (while no one holds the GPU alone, they are its)
    if (paused_for_window_.empty() || exclusive_) return;
    lock.unlock();
    resume_paused(std::nullopt);
    lock.lock();
  };
  auto give_up = [&]() -> std::shared_ptr<void> {
    resume_mine();
    account_locked(Clock::now());
    --exclusive_waiting_;
    cv_.notify_all();
    throw InfraFault(timing_wait_failure());
  };
  for (;;) {
    if (pause) {
      // The shared workers that cannot pause end first, while those that can go on working (new
      // ones wait); then those are paused at their next call boundary instead of waited for.
      if (!cv_.wait_until(lock, deadline, [&] {
            return !exclusive_ && !pausing_ && !timing_excluded_ && shared_ == int(pausable_.size());
          }))
        return give_up();
      if (shared_ > 0 && paused_count_ < shared_) {
        pausing_ = true;
        const bool all = pause_shared_workers(lock);
        pausing_ = false;
        ++(all ? paused_grants_ : pause_fallbacks_);
      }
    }
    const bool ready = cv_.wait_until(lock, deadline, [&] {
      return (!exclusive_ && !pausing_ && shared_ == paused_count_ && !timing_excluded_) ||
             (timing_excluded_ && !paused_for_window_.empty() && !exclusive_);
    });
    if (!ready) return give_up();
    if (!timing_excluded_) break;
    resume_mine();  // excluded from timing meanwhile: the paused workers go on while this waits
  }
  account_locked(Clock::now());
  --exclusive_waiting_;
  exclusive_ = true;
  ++grants_;
  // Stamped once every shared worker ended or acknowledged its pause: the window begins here.
  return std::shared_ptr<ExclusiveHold>(new ExclusiveHold{this, gpu_activity_clock_ns()});
}

std::string GpuGate::end_exclusive_use(std::shared_ptr<void>& use) {
  if (!use) return "";
  if (use.use_count() != 1) {  // another owner keeps it: its release reports to nobody
    use.reset();
    return "";
  }
  std::string why;
  static_cast<ExclusiveHold*>(use.get())->window_report = &why;
  use.reset();
  return why;
}

int GpuGate::paused_workers() const {
  std::lock_guard lock(mu_);
  return paused_count_;
}

void GpuGate::release_shared(PausableSharedWorker* pausable, SharedKind kind) {
  std::unique_lock lock(mu_);
  // A registered worker outlives its use; the gate may be pausing or resuming it right now.
  if (pausable) cv_.wait(lock, [&] { return touching_ == 0; });
  account_locked(Clock::now());
  --shared_;
  if (kind == SharedKind::timed_start) {
    --timed_starting_;
    if (!pausable) --timed_starting_unpausable_;
    timed_start_pausables_.erase(pausable);
  }
  if (kind == SharedKind::unpausable) --unpausable_;
  if (pausable) {
    if (auto it = pausable_.find(pausable); it != pausable_.end()) {
      if (it->second) --paused_count_;
      pausable_.erase(it);
    }
    std::erase(paused_for_window_, pausable);
  }
  cv_.notify_all();
}

std::string GpuGate::release_exclusive(uint64_t granted_ns) {
  const std::string why = resume_paused(ExclusiveWindow{granted_ns, gpu_activity_clock_ns()});
  std::lock_guard lock(mu_);
  account_locked(Clock::now());
  exclusive_ = false;
  if (!why.empty()) ++untrusted_windows_;
  cv_.notify_all();
  return why;
}

void GpuGate::set_paused(bool paused, const std::string& reason) {
  std::lock_guard lock(mu_);
  paused_ = paused;
  pause_reason_ = paused ? reason : "";
  cv_.notify_all();
}

void GpuGate::set_timing_excluded(bool excluded, const std::string& reason) {
  std::lock_guard lock(mu_);
  timing_excluded_ = excluded;
  timing_reason_ = excluded ? reason : "";
  cv_.notify_all();
}

void GpuGate::set_out_of_service(const std::string& reason) {
  std::lock_guard lock(mu_);
  out_of_service_ = true;
  out_of_service_reason_ = reason;
  cv_.notify_all();
}

bool GpuGate::wait_until_dispatchable(const std::atomic<bool>& stop) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stop || !paused_ || out_of_service_; });
  return !stop;
}

void GpuGate::wake_all() {
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

GpuGateSnapshot GpuGate::snapshot() const {
  std::lock_guard lock(mu_);
  const auto now = Clock::now();
  GpuGateSnapshot s;
  s.device = device_;
  s.shared_users = shared_;
  s.exclusive = exclusive_;
  s.paused = paused_;
  s.pause_reason = pause_reason_;
  s.timing_excluded = timing_excluded_;
  s.timing_exclusion_reason = timing_reason_;
  s.out_of_service = out_of_service_;
  s.out_of_service_reason = out_of_service_reason_;
  const double pending = std::chrono::duration<double>(now - last_change_).count();
  s.held_seconds = held_ + ((shared_ > 0 || exclusive_) ? pending : 0);
  s.exclusive_seconds = exclusive_held_ + (exclusive_ ? pending : 0);
  const bool draining = draining_locked();
  s.draining_seconds = draining_ + (draining ? pending : 0);
  std::array<double, 3> on = draining_on_;
  if (draining) on[static_cast<int>(drain_cause_locked())] += pending;
  s.draining_on_timed_start_seconds = on[static_cast<int>(DrainCause::timed_start)];
  s.draining_on_unpausable_seconds = on[static_cast<int>(DrainCause::unpausable)];
  s.draining_on_pause_seconds = on[static_cast<int>(DrainCause::pause)];
  s.held_back_seconds = held_back_;
  s.timed_starting = timed_starting_;
  s.paused_timed_starts = paused_timed_starts_;
  s.exclusive_grants = grants_;
  s.paused_users = paused_count_;
  s.paused_grants = paused_grants_;
  s.pause_fallbacks = pause_fallbacks_;
  s.untrusted_windows = untrusted_windows_;
  s.open_seconds = std::chrono::duration<double>(now - opened_).count();
  return s;
}

}  // namespace ptxbench

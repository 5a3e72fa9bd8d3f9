#include "service/engine/gpu_gate.h"

#include "judge/infra_fault.h"

namespace ptxbench {

using Clock = std::chrono::steady_clock;

GpuGate::GpuGate(int device, std::chrono::milliseconds max_timing_wait)
    : device_(device), max_timing_wait_(max_timing_wait) {}

void GpuGate::account_locked(Clock::time_point now) {
  const double dt = std::chrono::duration<double>(now - last_change_).count();
  if (shared_ > 0 || exclusive_) held_ += dt;
  if (exclusive_) exclusive_held_ += dt;
  if (!exclusive_ && exclusive_waiting_ > 0) draining_ += dt;
  last_change_ = now;
}

std::shared_ptr<void> GpuGate::shared_use() {
  std::unique_lock lock(mu_);
  // Writer preference: a waiting timed stage goes first.
  cv_.wait(lock, [&] { return !exclusive_ && exclusive_waiting_ == 0; });
  account_locked(Clock::now());
  ++shared_;
  return std::shared_ptr<void>(this, [](GpuGate* g) { g->release_shared(); });
}

std::shared_ptr<void> GpuGate::exclusive_use() {
  std::unique_lock lock(mu_);
  account_locked(Clock::now());
  ++exclusive_waiting_;
  const auto deadline = Clock::now() + max_timing_wait_;
  const bool granted = cv_.wait_until(lock, deadline, [&] { return !exclusive_ && shared_ == 0 && !timing_excluded_; });
  account_locked(Clock::now());
  --exclusive_waiting_;
  if (!granted) {
    cv_.notify_all();
    const std::string why = timing_excluded_ ? "excluded from timing (" + timing_reason_ + ")" : "busy";
    throw InfraFault("GPU " + std::to_string(device_) + " stayed " + why + " for " +
                     std::to_string(max_timing_wait_.count() / 1000) + " s: the timed stage moves to another attempt");
  }
  exclusive_ = true;
  ++grants_;
  return std::shared_ptr<void>(this, [](GpuGate* g) { g->release_exclusive(); });
}

void GpuGate::release_shared() {
  std::lock_guard lock(mu_);
  account_locked(Clock::now());
  --shared_;
  cv_.notify_all();
}

void GpuGate::release_exclusive() {
  std::lock_guard lock(mu_);
  account_locked(Clock::now());
  exclusive_ = false;
  cv_.notify_all();
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
  s.draining_seconds = draining_ + (!exclusive_ && exclusive_waiting_ > 0 ? pending : 0);
  s.exclusive_grants = grants_;
  s.open_seconds = std::chrono::duration<double>(now - opened_).count();
  return s;
}

}  // namespace ptxbench

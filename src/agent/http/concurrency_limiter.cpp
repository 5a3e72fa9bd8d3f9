// A client's in-flight limit: halved on a 429 once per burst, grown back by one after a run of successes.
#include "agent/http/concurrency_limiter.h"

#include <algorithm>

#include "core/error.h"

namespace ptxbench {

ConcurrencyLimiter::ConcurrencyLimiter(int max_limit) : max_(max_limit), limit_(max_limit) {
  if (max_limit < 1) throw InputError("max_concurrency must be at least 1 (got " + std::to_string(max_limit) + ")");
}

ConcurrencyLimiter::Slot::Slot(Slot&& other) noexcept : owner_(other.owner_), epoch_(other.epoch_) {
  other.owner_ = nullptr;
}

ConcurrencyLimiter::Slot::~Slot() {
  if (owner_) owner_->release();
}

ConcurrencyLimiter::Slot ConcurrencyLimiter::acquire() {
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [this] { return in_flight_ < limit_; });
  ++in_flight_;
  return Slot(this, epoch_);
}

ConcurrencyLimiter::Slot ConcurrencyLimiter::acquire(std::chrono::milliseconds report_after,
                                                     const std::function<void(int, int)>& waiting) {
  std::unique_lock lock(mutex_);
  const auto free = [this] { return in_flight_ < limit_; };
  if (!freed_.wait_for(lock, report_after, free)) {
    const int limit = limit_, in_flight = in_flight_;
    lock.unlock();
    if (waiting) waiting(limit, in_flight);
    lock.lock();
    freed_.wait(lock, free);
  }
  ++in_flight_;
  return Slot(this, epoch_);
}

void ConcurrencyLimiter::release() {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  freed_.notify_all();
}

std::optional<int> ConcurrencyLimiter::rate_limited(const Slot& slot) {
  std::lock_guard lock(mutex_);
  successes_ = 0;
  if (slot.epoch_ != epoch_ || limit_ == 1) return std::nullopt;  // this burst already cut it
  limit_ = std::max(1, limit_ / 2);
  ++epoch_;
  return limit_;
}

void ConcurrencyLimiter::succeeded(const Slot&) {
  bool grew = false;
  {
    std::lock_guard lock(mutex_);
    if (limit_ < max_ && ++successes_ >= limit_) {
      ++limit_;
      successes_ = 0;
      grew = true;
    }
  }
  if (grew) freed_.notify_all();
}

int ConcurrencyLimiter::limit() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

int ConcurrencyLimiter::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

}  // namespace ptxbench

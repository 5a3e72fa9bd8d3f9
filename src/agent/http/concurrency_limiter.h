// How many requests of one client may be in flight: starts at the configured maximum, halves on a
// 429 (once per burst: only a request that started after the last cut can cut again) and grows back
// by one after `limit` successes in a row (additive increase), up to the maximum.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace ptxbench {

class ConcurrencyLimiter {
 public:
  explicit ConcurrencyLimiter(int max_limit);

  // Held while one request is in flight; returned to the limiter when destroyed.
  class Slot {
   public:
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    ~Slot();

   private:
    friend class ConcurrencyLimiter;
    Slot(ConcurrencyLimiter* owner, unsigned long long epoch) : owner_(owner), epoch_(epoch) {}
    ConcurrencyLimiter* owner_;
    unsigned long long epoch_;  // the limit's generation when the slot was taken
  };

  Slot acquire();  // blocks while `limit()` requests are in flight
  // The same; when the wait passes `report_after`, calls `waiting(limit, in_flight)` once (so a
  // long queue is a visible line, never a silent stall).
  Slot acquire(std::chrono::milliseconds report_after, const std::function<void(int limit, int in_flight)>& waiting);

  // Feedback from the request that holds `slot`. rate_limited returns the new limit when it shrank.
  std::optional<int> rate_limited(const Slot& slot);
  void succeeded(const Slot& slot);

  int limit() const;
  int in_flight() const;
  int max_limit() const { return max_; }

 private:
  void release();
  const int max_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  int limit_;
  int in_flight_ = 0;
  int successes_ = 0;             // in a row, since the last change of the limit
  unsigned long long epoch_ = 0;  // bumped whenever the limit shrinks
};

}  // namespace ptxbench

// When to try a model request again: exponential backoff with jitter, the server's Retry-After
// (seconds or an HTTP date), a cap on attempts and a total deadline. The clock is injectable so the
// policy and the clients are tested without sleeping for real.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace ptxbench {

using Millis = std::chrono::milliseconds;

// The time source of a client's retry waits.
class RetryClock {
 public:
  virtual ~RetryClock() = default;
  virtual std::chrono::steady_clock::time_point now() = 0;
  virtual std::chrono::system_clock::time_point wall_now() = 0;  // what a Retry-After date is compared with
  virtual void sleep_for(Millis d) = 0;
};
// The real clocks and std::this_thread::sleep_for.
std::shared_ptr<RetryClock> real_clock();

// A clock whose sleeps return at once and move its time forward instead (tests); thread-safe.
class SkippingClock : public RetryClock {
 public:
  std::chrono::steady_clock::time_point now() override;
  std::chrono::system_clock::time_point wall_now() override;
  void sleep_for(Millis d) override;
  Millis slept() const;  // total of all sleeps so far

 private:
  mutable std::mutex mutex_;
  Millis skipped_{0};
};

struct RetrySettings {
  Millis base_delay{2000};      // the first backoff; doubles with each retry
  Millis max_delay{60000};      // backoff cap (a longer Retry-After is still honoured)
  Millis deadline{30 * 60000};  // total time of one call, waits and attempts included
  int max_attempts = 10;
  double jitter = 0.5;  // a backoff of d waits uniformly in [(1 - jitter) d, d]
};

// A Retry-After value: delay-seconds ("12", "1.5") or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT",
// compared with `now`; a past date is 0). nullopt when empty or unreadable.
std::optional<Millis> parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now);

// "12 s", "1.5 s", "250 ms": how waits are shown in retry lines.
std::string format_wait(Millis d);

struct RetryDecision {
  std::optional<Millis> wait;  // nullopt: stop retrying
  std::string stop_reason;     // why not, when wait is nullopt
};

// Thread-safe (one instance per client).
class RetryPolicy {
 public:
  explicit RetryPolicy(RetrySettings settings, std::uint64_t seed = std::random_device{}());
  const RetrySettings& settings() const { return settings_; }

  // After `attempts_made` failed attempts (>= 1) and `elapsed` since the call began: how long to wait
  // before the next one. A Retry-After is waited in full plus up to 10% (at most 1 s) of jitter, so
  // clients told the same value do not return together; without it, the jittered backoff. Stops
  // when the attempts are used up or the wait would end past the deadline (`deadline` when given,
  // else the settings').
  RetryDecision next(int attempts_made, std::optional<Millis> retry_after, Millis elapsed,
                     std::optional<Millis> deadline = std::nullopt);

  // The backoff before retry `retry` (1-based), before jitter: base * 2^(retry-1), capped.
  Millis backoff(int retry) const;

 private:
  RetrySettings settings_;
  std::mutex mutex_;
  std::mt19937_64 rng_;
};

}  // namespace ptxbench

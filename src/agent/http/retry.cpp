// When to retry a model request: backoff with jitter, Retry-After, an attempt cap and a deadline.
#include "agent/http/retry.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <thread>

namespace ptxbench {
namespace {

class RealClock : public RetryClock {
 public:
  std::chrono::steady_clock::time_point now() override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point wall_now() override { return std::chrono::system_clock::now(); }
  void sleep_for(Millis d) override { std::this_thread::sleep_for(d); }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::shared_ptr<RetryClock> real_clock() {
  static const auto clock = std::make_shared<RealClock>();
  return clock;
}

std::chrono::steady_clock::time_point SkippingClock::now() {
  std::lock_guard lock(mutex_);
  return std::chrono::steady_clock::now() + skipped_;
}

std::chrono::system_clock::time_point SkippingClock::wall_now() {
  std::lock_guard lock(mutex_);
  return std::chrono::system_clock::now() + skipped_;
}

void SkippingClock::sleep_for(Millis d) {
  std::lock_guard lock(mutex_);
  skipped_ += d;
}

Millis SkippingClock::slept() const {
  std::lock_guard lock(mutex_);
  return skipped_;
}

std::optional<Millis> parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    double seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds)) return std::nullopt;
    return Millis(static_cast<long long>(std::llround(seconds * 1000)));
  }
  // libcurl's date parser reads the three HTTP date forms (IMF-fixdate, RFC 850, asctime).
  const std::string text(value);
  const time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  const auto delta = std::chrono::system_clock::from_time_t(when) - now;
  return std::max(Millis(0), std::chrono::duration_cast<Millis>(delta));
}

std::string format_wait(Millis d) {
  const long long ms = d.count();
  char text[48];
  if (ms < 1000) std::snprintf(text, sizeof text, "%lld ms", ms);
  else if (ms < 10000 && (ms + 50) / 100 % 10 != 0) std::snprintf(text, sizeof text, "%.1f s", double(ms) / 1000.0);
  else std::snprintf(text, sizeof text, "%lld s", (ms + 500) / 1000);
  return text;
}

RetryPolicy::RetryPolicy(RetrySettings settings, std::uint64_t seed) : settings_(settings), rng_(seed) {}

Millis RetryPolicy::backoff(int retry) const {
  const double factor = std::ldexp(1.0, std::clamp(retry - 1, 0, 40));
  const double ms = std::min(double(settings_.max_delay.count()), double(settings_.base_delay.count()) * factor);
  return Millis(static_cast<long long>(ms));
}

RetryDecision RetryPolicy::next(int attempts_made, std::optional<Millis> retry_after, Millis elapsed,
                                std::optional<Millis> deadline) {
  const Millis limit = deadline.value_or(settings_.deadline);
  if (attempts_made >= settings_.max_attempts)
    return {std::nullopt, "all " + std::to_string(settings_.max_attempts) + " attempts used"};
  Millis wait{0};
  {
    std::lock_guard lock(mutex_);
    if (retry_after) {
      const long long spread = std::min<long long>(retry_after->count() / 10, 1000);
      wait = *retry_after + Millis(std::uniform_int_distribution<long long>(0, spread)(rng_));
    } else {
      const long long full = backoff(attempts_made).count();
      const auto low = static_cast<long long>(double(full) * (1.0 - std::clamp(settings_.jitter, 0.0, 1.0)));
      wait = Millis(std::uniform_int_distribution<long long>(low, full)(rng_));
    }
  }
  if (elapsed + wait >= limit)
    return {std::nullopt, "waiting " + format_wait(wait) + " would pass the " + format_wait(limit) + " deadline"};
  return {wait, ""};
}

}  // namespace ptxbench

// The retry policy without sleeping: Retry-After in both forms, backoff, jitter bounds, the deadline.
#include <gtest/gtest.h>

#include <set>

#include "agent/http/retry.h"

namespace ptxbench {
namespace {

using std::chrono::system_clock;

// A fixed "now" for the date tests: Sun, 06 Nov 1994 08:49:37 GMT.
const system_clock::time_point kNow = system_clock::from_time_t(784111777);

TEST(RetryAfter, Seconds) {
  const auto now = system_clock::now();
  EXPECT_EQ(parse_retry_after("12", now), Millis(12000));
  EXPECT_EQ(parse_retry_after(" 0 ", now), Millis(0));
  EXPECT_EQ(parse_retry_after("1.5", now), Millis(1500));
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("12abc", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("-3", now), std::nullopt);
}

TEST(RetryAfter, HttpDateInEveryForm) {
  const auto now = kNow;
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:49 GMT", now), Millis(12000));   // IMF-fixdate
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:50:37 GMT", now), Millis(60000));  // RFC 850
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:40 1994", now), Millis(3000));         // asctime
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), Millis(0));       // past: now
  EXPECT_EQ(parse_retry_after("Someday, 99 Foo 1994", now), std::nullopt);
}

TEST(RetryFormat, Waits) {
  EXPECT_EQ(format_wait(Millis(250)), "250 ms");
  EXPECT_EQ(format_wait(Millis(1500)), "1.5 s");
  EXPECT_EQ(format_wait(Millis(2000)), "2 s");
  EXPECT_EQ(format_wait(Millis(12345)), "12 s");
}

TEST(RetryPolicy, BackoffDoublesUpToTheCap) {
  RetryPolicy p({.base_delay = Millis(1000), .max_delay = Millis(10000)});
  EXPECT_EQ(p.backoff(1), Millis(1000));
  EXPECT_EQ(p.backoff(2), Millis(2000));
  EXPECT_EQ(p.backoff(4), Millis(8000));
  EXPECT_EQ(p.backoff(5), Millis(10000));
  EXPECT_EQ(p.backoff(60), Millis(10000));
}

TEST(RetryPolicy, JitterStaysWithinItsBoundsAndVaries) {
  RetryPolicy p({.base_delay = Millis(1000), .max_delay = Millis(60000), .jitter = 0.5}, 42);
  std::set<long long> seen;
  for (int i = 0; i < 2000; ++i) {
    const auto d = p.next(3, std::nullopt, Millis(0));  // backoff 4 s
    ASSERT_TRUE(d.wait);
    ASSERT_GE(d.wait->count(), 2000);
    ASSERT_LE(d.wait->count(), 4000);
    seen.insert(d.wait->count() / 100);
  }
  EXPECT_GT(seen.size(), 15u);  // spread over the range, not one value
}

TEST(RetryPolicy, RetryAfterIsWaitedInFullWithSmallJitter) {
  RetryPolicy p({.base_delay = Millis(1000)}, 7);
  Millis::rep lowest = 1 << 30, highest = 0;
  for (int i = 0; i < 500; ++i) {
    const auto d = p.next(1, Millis(20000), Millis(0));
    ASSERT_TRUE(d.wait);
    lowest = std::min(lowest, d.wait->count());
    highest = std::max(highest, d.wait->count());
  }
  EXPECT_GE(lowest, 20000);
  EXPECT_LE(highest, 21000);  // 10%, at most 1 s
  EXPECT_GT(highest, lowest);
}

TEST(RetryPolicy, StopsAtTheDeadline) {
  RetryPolicy p({.base_delay = Millis(1000), .deadline = Millis(10000)});
  EXPECT_TRUE(p.next(1, Millis(5000), Millis(4000)).wait);
  const auto late = p.next(1, Millis(5000), Millis(6000));
  EXPECT_FALSE(late.wait);
  EXPECT_NE(late.stop_reason.find("deadline"), std::string::npos) << late.stop_reason;
  EXPECT_FALSE(p.next(1, std::nullopt, Millis(10000)).wait);
  EXPECT_TRUE(p.next(1, Millis(5000), Millis(6000), Millis(60000)).wait);  // a longer per-call deadline
}

TEST(RetryPolicy, StopsWhenTheAttemptsAreUsed) {
  RetryPolicy p({.base_delay = Millis(10), .max_attempts = 3});
  EXPECT_TRUE(p.next(1, std::nullopt, Millis(0)).wait);
  EXPECT_TRUE(p.next(2, std::nullopt, Millis(0)).wait);
  const auto d = p.next(3, std::nullopt, Millis(0));
  EXPECT_FALSE(d.wait);
  EXPECT_NE(d.stop_reason.find("3 attempts"), std::string::npos) << d.stop_reason;
}

TEST(SkippingClock, SleepsMoveTimeInsteadOfWaiting) {
  SkippingClock clock;
  const auto real_start = std::chrono::steady_clock::now();
  const auto start = clock.now();
  clock.sleep_for(Millis(3600 * 1000));
  EXPECT_GE(clock.now() - start, std::chrono::hours(1));
  EXPECT_LT(std::chrono::steady_clock::now() - real_start, std::chrono::seconds(1));
  EXPECT_EQ(clock.slept(), Millis(3600 * 1000));
}

}  // namespace
}  // namespace ptxbench

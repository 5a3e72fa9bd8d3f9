// The per-client concurrency limit: halves on a 429 once per burst, grows back by one slowly, and
// blocks callers beyond the limit.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "agent/http/concurrency_limiter.h"
#include "core/error.h"

namespace ptxbench {
namespace {

TEST(ConcurrencyLimiter, HalvesOncePerBurstOf429s) {
  ConcurrencyLimiter limiter(16);
  {
    auto a = limiter.acquire();
    auto b = limiter.acquire();
    EXPECT_EQ(limiter.rate_limited(a), 8);
    EXPECT_EQ(limiter.rate_limited(b), std::nullopt);  // started before the cut: same burst
    EXPECT_EQ(limiter.limit(), 8);
    auto c = limiter.acquire();  // started after the cut
    EXPECT_EQ(limiter.rate_limited(c), 4);
  }
  for (int i = 0; i < 4; ++i) {
    auto s = limiter.acquire();
    limiter.rate_limited(s);
  }
  EXPECT_EQ(limiter.limit(), 1);  // never below one
}

TEST(ConcurrencyLimiter, GrowsBackByOneAfterLimitSuccesses) {
  ConcurrencyLimiter limiter(4);
  {
    auto s = limiter.acquire();
    limiter.rate_limited(s);
  }
  {
    auto s = limiter.acquire();
    limiter.rate_limited(s);
  }
  ASSERT_EQ(limiter.limit(), 1);
  const auto succeed = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto s = limiter.acquire();
      limiter.succeeded(s);
    }
  };
  succeed(1);
  EXPECT_EQ(limiter.limit(), 2);
  succeed(1);
  EXPECT_EQ(limiter.limit(), 2);  // two in a row needed at limit 2
  succeed(1);
  EXPECT_EQ(limiter.limit(), 3);
  succeed(3);
  EXPECT_EQ(limiter.limit(), 4);
  succeed(100);
  EXPECT_EQ(limiter.limit(), 4);  // not above the maximum
}

TEST(ConcurrencyLimiter, BlocksBeyondTheLimit) {
  ConcurrencyLimiter limiter(2);
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      auto slot = limiter.acquire();
      const int now = ++inside;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --inside;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(most.load(), 2);
  EXPECT_EQ(limiter.in_flight(), 0);
}

TEST(ConcurrencyLimiter, ALongWaitIsReported) {
  ConcurrencyLimiter limiter(1);
  auto held = std::make_unique<ConcurrencyLimiter::Slot>(limiter.acquire());
  std::atomic<int> reports{0};
  std::thread waiter([&] {
    auto s = limiter.acquire(std::chrono::milliseconds(20), [&](int limit, int in_flight) {
      EXPECT_EQ(limit, 1);
      EXPECT_EQ(in_flight, 1);
      ++reports;
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(reports.load(), 1);
  held.reset();  // frees the slot: the waiter gets it
  waiter.join();
  EXPECT_EQ(reports.load(), 1);
  EXPECT_EQ(limiter.in_flight(), 0);
}

TEST(ConcurrencyLimiter, RejectsANonPositiveLimit) { EXPECT_THROW(ConcurrencyLimiter(0), InputError); }

}  // namespace
}  // namespace ptxbench

// The cache of the library's clean timings (judge/caches/baseline_cache.h): fresh entries are
// found per (GPU, scope, shape), a GPU's are dropped when its monitor records anything, and a
// second timed worker that needs shapes another is timing waits for that store instead of timing
// the library alone again; a claim released without a store lets the waiting worker time them.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "judge/caches/baseline_cache.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

json items(std::initializer_list<int> ms) {
  json out = json::array();
  for (int m : ms) out.push_back({{"shape", {{"M", m}}}});
  return out;
}

json measured(int m, double median_ms) {
  return {{"type", "baseline_alone"}, {"shape", {{"M", m}}}, {"median_ms", median_ms},
          {"median_error", 0.001},    {"samples", 20},       {"sm_clock_mhz", 1980}};
}

std::string key(int m) { return json{{"M", m}}.dump(); }

}  // namespace

TEST(BaselineCache, FindsWhatWasStoredForTheSameGpuAndScopeOnly) {
  BaselineCache cache;
  cache.store("gemm|H200", 0,
              {measured(128, 0.5), {{"type", "baseline_alone"}, {"shape", {{"M", 256}}}, {"cached", true}}});
  const json hit = cache.lookup("gemm|H200", 0, items({128, 256}));
  ASSERT_TRUE(hit.contains(key(128)));
  EXPECT_DOUBLE_EQ(hit[key(128)].value("median_ms", 0.0), 0.5);
  EXPECT_FALSE(hit.contains(key(256))) << "a timing that was itself cached was stored again";
  EXPECT_TRUE(cache.lookup("gemm|H200", 1, items({128})).empty()) << "another GPU's timing was reused";
  EXPECT_TRUE(cache.lookup("mha_fwd|H200", 0, items({128})).empty()) << "another scope's timing was reused";
  cache.invalidate(0);
  EXPECT_TRUE(cache.lookup("gemm|H200", 0, items({128})).empty()) << "an invalidated GPU kept its timings";
  EXPECT_EQ(cache.hits(), 1);
}

TEST(BaselineCache, ExpiredTimingsAreNotFound) {
  BaselineCache cache(0s);
  cache.store("gemm", 0, {measured(128, 0.5)});
  std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(cache.lookup("gemm", 0, items({128})).empty());
  BaselineClaim c = cache.claim("gemm", 0, items({128}), 1s);
  EXPECT_TRUE(c.cached().empty());
  EXPECT_EQ(c.claimed_shapes(), 1u);
}

TEST(BaselineCache, ASecondWorkerWaitsForTheShapesTheFirstIsTiming) {
  BaselineCache cache;
  BaselineClaim first = cache.claim("gemm", 0, items({128, 256}), 1s);
  ASSERT_EQ(first.claimed_shapes(), 2u);
  ASSERT_TRUE(first.cached().empty());
  std::atomic<bool> second_done{false};
  BaselineClaim second;
  std::thread t([&] {
    second = cache.claim("gemm", 0, items({256, 512}), 60s);
    second_done = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(second_done) << "the second worker did not wait for the shape the first was timing";
  cache.store("gemm", 0, {measured(128, 0.5), measured(256, 0.9)});
  first.release();
  t.join();
  EXPECT_TRUE(second.cached().contains(key(256))) << second.cached().dump();
  EXPECT_EQ(second.claimed_shapes(), 1u) << "only the shape nobody had timed is left to it";
  EXPECT_GT(second.waited_seconds(), 0.0);
  // A claim is not a block on other scopes or GPUs.
  BaselineClaim other = cache.claim("gemm", 1, items({512}), 60s);
  EXPECT_EQ(other.claimed_shapes(), 1u);
}

TEST(BaselineCache, AClaimReleasedWithoutAStoreLeavesTheShapesToTheWaitingWorker) {
  BaselineCache cache;
  auto first = std::make_unique<BaselineClaim>(cache.claim("gemm", 0, items({128}), 1s));
  BaselineClaim second;
  std::thread t([&] { second = cache.claim("gemm", 0, items({128}), 60s); });
  std::this_thread::sleep_for(20ms);
  first.reset();  // the first worker ended without clean timings (a crash, a forbidden candidate)
  t.join();
  EXPECT_TRUE(second.cached().empty());
  EXPECT_EQ(second.claimed_shapes(), 1u);
}

TEST(BaselineCache, AWaitEndsAtItsLimitAndTheShapeIsTimedUnclaimed) {
  BaselineCache cache;
  BaselineClaim first = cache.claim("gemm", 0, items({128}), 1s);
  BaselineClaim late = cache.claim("gemm", 0, items({128}), 0s);
  EXPECT_TRUE(late.cached().empty());
  EXPECT_EQ(late.claimed_shapes(), 0u) << "the shape another worker still claims was claimed twice";
}

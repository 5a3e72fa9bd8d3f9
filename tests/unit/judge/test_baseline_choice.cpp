// Issue 30: the speedup's baseline is the faster of the library beside the candidate and alone,
// so a library slowed beside the candidate (by less than the drift that is forbidden) earns the
// candidate nothing; the record says which was used.
#include <gtest/gtest.h>

#include "judge/stages/worker_events.h"

using namespace ptxbench;

namespace {

json timing_event(double candidate_ms, double beside_ms, json alone) {
  const json stats = [](double ms) {
    return json{{"median_ms", ms}, {"p10_ms", ms}, {"p90_ms", ms}, {"spread", 0.0}, {"samples", 30}};
  }(candidate_ms);
  json t = {
      {"shape", {{"M", 4096}}},
      {"flops", 1e12},
      {"candidate", stats},
      {"baseline",
       {{"median_ms", beside_ms}, {"p10_ms", beside_ms}, {"p90_ms", beside_ms}, {"spread", 0.0}, {"samples", 30}}}};
  if (!alone.is_null()) t["baseline_alone"] = alone;
  return t;
}

}  // namespace

TEST(BaselineChoice, ALibrarySlowedBesideTheCandidateEarnsItNothing) {
  // The library 8% slower beside the candidate than alone (below the 10% that is forbidden).
  const ShapeTiming t = to_shape_timing(timing_event(1.0, 1.08, {{"before_ms", 1.0}, {"drift", 0.08}}));
  EXPECT_DOUBLE_EQ(t.speedup, 1.0);
  EXPECT_EQ(t.baseline_source, "alone");
  EXPECT_DOUBLE_EQ(t.baseline_interleaved_ms, 1.08);
  EXPECT_DOUBLE_EQ(t.baseline_alone_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.baseline_median_ms, 1.0);
}

TEST(BaselineChoice, TheFasterTimingWinsWhicheverItIs) {
  ShapeTiming t = to_shape_timing(timing_event(1.0, 0.99, {{"before_ms", 1.0}, {"drift", -0.01}}));
  EXPECT_EQ(t.baseline_source, "interleaved");
  EXPECT_DOUBLE_EQ(t.speedup, 0.99);
  // The library timed alone again after a drift counts too.
  t = to_shape_timing(timing_event(1.0, 1.2, {{"before_ms", 1.1}, {"after_ms", 0.95}, {"drift", 0.09}}));
  EXPECT_EQ(t.baseline_source, "alone");
  EXPECT_DOUBLE_EQ(t.baseline_alone_ms, 0.95);
  EXPECT_DOUBLE_EQ(t.speedup, 0.95);
  // Without a clean timing the interleaved one stands.
  t = to_shape_timing(timing_event(2.0, 1.0, nullptr));
  EXPECT_EQ(t.baseline_source, "interleaved");
  EXPECT_DOUBLE_EQ(t.baseline_alone_ms, 0);
  EXPECT_DOUBLE_EQ(t.speedup, 0.5);
}

// A paused shared worker's GPU work held against the exclusive window (judge/pause_overlap.h):
// work inside the window is an overlap, work after the harness had the acknowledgement is the
// worker's doing, work outside the window (or reaching into it by less than the clock slack) is none.
#include <gtest/gtest.h>

#include "judge/pause_overlap.h"

using namespace ptxbench;

namespace {

constexpr uint64_t ms(double v) { return uint64_t(v * 1e6); }

ActivitySpan span(uint64_t start, uint64_t end, std::string actor = "candidate_call", std::string name = "k") {
  return {start, end, "kernel", std::move(actor), std::move(name)};
}

PauseReport report(std::vector<ActivitySpan> work) {
  PauseReport r;
  r.pause = 1;
  r.acked_ns = ms(10);
  r.resumed_ns = ms(90);
  r.activity_known = true;
  r.work = std::move(work);
  return r;
}

constexpr ExclusiveWindow kWindow{ms(20), ms(80)};
constexpr uint64_t kAcked = ms(15);  // the harness had the acknowledgement before the window began

}  // namespace

TEST(PauseOverlap, WorkOutsideTheWindowIsNoOverlap) {
  EXPECT_TRUE(
      overlaps_with_window(kWindow, kAcked, report({span(ms(1), ms(9)), span(ms(80), ms(85)), span(ms(81), ms(82))}))
          .empty());
  EXPECT_TRUE(overlaps_with_window(kWindow, kAcked, report({})).empty());
}

TEST(PauseOverlap, WorkInsideOrAcrossTheWindowIsAnOverlap) {
  const auto o = overlaps_with_window(kWindow, kAcked,
                                      report({span(ms(25), ms(30)), span(ms(19), ms(21)), span(ms(79), ms(90)),
                                              span(ms(1), ms(2)), span(ms(5), ms(95))}));
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(o[0].span.start_ns, ms(25));
  EXPECT_EQ(o[1].span.start_ns, ms(19));
  EXPECT_EQ(o[2].span.start_ns, ms(79));
  EXPECT_EQ(o[3].span.start_ns, ms(5)) << "a span covering the whole window";
}

// CUPTI's timestamps are converted to the CPU clock: an edge touched by less than the slack is no
// overlap, a short kernel inside the window is one whatever its length.
TEST(PauseOverlap, TheEdgesAreForgivenTheClockSlackAndNoMore) {
  const uint64_t slack = kPauseClockSlackNs;
  EXPECT_TRUE(overlaps_with_window(kWindow, kAcked, report({span(ms(19), kWindow.start_ns + slack)})).empty());
  EXPECT_TRUE(overlaps_with_window(kWindow, kAcked, report({span(kWindow.end_ns - slack, ms(81))})).empty());
  EXPECT_EQ(overlaps_with_window(kWindow, kAcked, report({span(ms(19), kWindow.start_ns + slack + 1)})).size(), 1u);
  EXPECT_EQ(overlaps_with_window(kWindow, kAcked, report({span(kWindow.end_ns - slack - 1, ms(81))})).size(), 1u);
  EXPECT_EQ(overlaps_with_window(kWindow, kAcked, report({span(ms(50), ms(50) + 1000)})).size(), 1u)
      << "a 1 us kernel in the middle of the window";
}

TEST(PauseOverlap, WorkAfterTheAcknowledgementIsTheWorkersDoing) {
  const auto o = overlaps_with_window(kWindow, kAcked, report({span(ms(25), ms(30), "harness", "")}));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_TRUE(o[0].caused_by_worker) << "whoever launched it, it ran after the worker said it was idle";
}

// The harness took its acknowledgement late (its clock reading is what counts): work that began
// before it but ran on into the window still overlaps, and is not blamed on the worker when it
// ended before that acknowledgement reached the harness.
TEST(PauseOverlap, WorkThatEndedBeforeTheAcknowledgementIsNotBlamed) {
  const ExclusiveWindow early{ms(10), ms(80)};  // a window that (wrongly) began before the acknowledgement
  const auto o = overlaps_with_window(early, ms(30), report({span(ms(12), ms(25)), span(ms(28), ms(35))}));
  ASSERT_EQ(o.size(), 2u);
  EXPECT_FALSE(o[0].caused_by_worker);
  EXPECT_TRUE(o[1].caused_by_worker);
}

TEST(PauseOverlap, AnEmptyWindowHasNoOverlap) {
  EXPECT_TRUE(overlaps_with_window({ms(50), ms(50)}, kAcked, report({span(ms(40), ms(60))})).empty());
}

TEST(PauseOverlap, ARecordWithoutALengthStillCounts) {
  const auto o = overlaps_with_window(kWindow, kAcked, report({span(ms(30), 0)}));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_TRUE(o[0].caused_by_worker);
}

TEST(PauseOverlap, TheDescriptionNamesTheKernelTheActorAndWhen) {
  const auto o = overlaps_with_window(kWindow, kAcked,
                                      report({span(ms(32), ms(40), "candidate_call", "spin"), span(ms(50), ms(60))}));
  const std::string d = describe_overlaps(o, kWindow, kAcked);
  EXPECT_NE(d.find("kernel 'spin' (candidate_call) ran 12.000 ms into the exclusive window"), std::string::npos) << d;
  EXPECT_NE(d.find("17.000 ms after the worker acknowledged the pause"), std::string::npos) << d;
  EXPECT_NE(d.find("(and 1 more)"), std::string::npos) << d;
  EXPECT_EQ(describe_overlaps({}, kWindow, kAcked), "");
}

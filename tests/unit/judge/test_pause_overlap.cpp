// A paused shared worker's GPU work held against the exclusive window (judge/pause_overlap.h):
// work inside the window is an overlap, work after the harness had the acknowledgement is the
// worker's doing, work that ended before the window is none.
#include <gtest/gtest.h>

#include "judge/pause_overlap.h"

using namespace ptxbench;

namespace {

ActivitySpan span(uint64_t start, uint64_t end, std::string actor = "candidate_call", std::string name = "k") {
  return {start, end, "kernel", std::move(actor), std::move(name)};
}

PauseReport report(std::vector<ActivitySpan> work) {
  PauseReport r;
  r.pause = 1;
  r.acked_ns = 1000;
  r.resumed_ns = 9000;
  r.activity_known = true;
  r.work = std::move(work);
  return r;
}

constexpr ExclusiveWindow kWindow{2000, 8000};
constexpr uint64_t kAcked = 1500;  // the harness had the acknowledgement before the window began

}  // namespace

TEST(PauseOverlap, WorkOutsideTheWindowIsNoOverlap) {
  EXPECT_TRUE(
      overlaps_with_window(kWindow, kAcked, report({span(100, 900), span(8000, 8500), span(8100, 8200)})).empty());
  EXPECT_TRUE(overlaps_with_window(kWindow, kAcked, report({})).empty());
}

TEST(PauseOverlap, WorkInsideOrAcrossTheWindowIsAnOverlap) {
  const auto o = overlaps_with_window(kWindow, kAcked,
                                      report({span(2500, 3000), span(1900, 2001), span(7999, 9000), span(100, 200)}));
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0].span.start_ns, 2500u);
  EXPECT_EQ(o[1].span.start_ns, 1900u);
  EXPECT_EQ(o[2].span.start_ns, 7999u);
}

TEST(PauseOverlap, WorkAfterTheAcknowledgementIsTheWorkersDoing) {
  const auto o = overlaps_with_window(kWindow, kAcked, report({span(2500, 3000, "harness", "")}));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_TRUE(o[0].caused_by_worker) << "whoever launched it, it ran after the worker said it was idle";
}

// The harness took its acknowledgement late (its clock reading is what counts): work that began
// before it but ran on into the window still overlaps, and is not blamed on the worker when it
// ended before that acknowledgement reached the harness.
TEST(PauseOverlap, WorkThatEndedBeforeTheAcknowledgementIsNotBlamed) {
  const ExclusiveWindow early{1000, 8000};  // a window that (wrongly) began before the acknowledgement
  const auto o = overlaps_with_window(early, 3000, report({span(1200, 2500), span(2800, 3500)}));
  ASSERT_EQ(o.size(), 2u);
  EXPECT_FALSE(o[0].caused_by_worker);
  EXPECT_TRUE(o[1].caused_by_worker);
}

TEST(PauseOverlap, AnEmptyWindowHasNoOverlap) {
  EXPECT_TRUE(overlaps_with_window({5000, 5000}, kAcked, report({span(4000, 6000)})).empty());
}

TEST(PauseOverlap, ARecordWithoutALengthStillCounts) {
  const auto o = overlaps_with_window(kWindow, kAcked, report({span(3000, 0)}));
  ASSERT_EQ(o.size(), 1u);
  EXPECT_TRUE(o[0].caused_by_worker);
}

TEST(PauseOverlap, TheDescriptionNamesTheKernelTheActorAndWhen) {
  const auto o =
      overlaps_with_window(kWindow, kAcked, report({span(3200, 4000, "candidate_call", "spin"), span(5000, 6000)}));
  const std::string d = describe_overlaps(o, kWindow, kAcked);
  EXPECT_NE(d.find("kernel 'spin' (candidate_call) ran 0.001 ms into the exclusive window"), std::string::npos) << d;
  EXPECT_NE(d.find("0.002 ms after the worker acknowledged the pause"), std::string::npos) << d;
  EXPECT_NE(d.find("(and 1 more)"), std::string::npos) << d;
  EXPECT_EQ(describe_overlaps({}, kWindow, kAcked), "");
}

// What a paused shared worker reports of its GPU work (runner/integrity/pause_activity.h): the work
// that ended after its acknowledgement, oldest first, each named by who launched it (an unannounced
// launch named so), at most kPauseReportMaxSpans with the rest counted.
#include <gtest/gtest.h>

#include "runner/integrity/pause_activity.h"

using namespace ptxbench;

namespace {

DeviceWork kernel(uint32_t correlation, uint64_t start, uint64_t end, std::string name = "k") {
  DeviceWork w;
  w.correlation = correlation;
  w.start = start;
  w.end = end;
  w.name = std::move(name);
  return w;
}

Launch launch(uint32_t correlation, Actor actor) {
  Launch l;
  l.correlation = correlation;
  l.actor = actor;
  return l;
}

}  // namespace

TEST(PauseActivity, OnlyWorkThatEndedAfterTheAcknowledgementIsReportedOldestFirst) {
  Observations o;
  o.active = true;
  o.launches = {launch(1, Actor::harness), launch(2, Actor::candidate_call), launch(3, Actor::candidate_call)};
  o.work = {kernel(1, 100, 200, "before"), kernel(3, 900, 950, "later"), kernel(2, 400, 600, "spin")};
  const PauseReport r = work_after_acknowledgement(o, 500);
  EXPECT_TRUE(r.activity_known);
  ASSERT_EQ(r.work.size(), 2u);
  EXPECT_EQ(r.work[0].name, "spin");
  EXPECT_EQ(r.work[0].actor, "candidate_call");
  EXPECT_EQ(r.work[0].kind, "kernel");
  EXPECT_EQ(r.work[1].name, "later");
  EXPECT_EQ(r.more, 0u);
}

TEST(PauseActivity, WorkNoAnnouncedLaunchMadeIsNamedUnannounced) {
  Observations o;
  o.active = true;
  DeviceWork copy = kernel(9, 700, 800, "");
  copy.kind = DeviceWork::Kind::memcpy;
  o.work = {copy};
  const PauseReport r = work_after_acknowledgement(o, 500);
  ASSERT_EQ(r.work.size(), 1u);
  EXPECT_EQ(r.work[0].actor, "unannounced");
  EXPECT_EQ(r.work[0].kind, "memcpy");
}

TEST(PauseActivity, AtMostTheBoundIsListedAndTheRestCounted) {
  Observations o;
  o.active = true;
  for (uint32_t i = 0; i < kPauseReportMaxSpans + 5; ++i) o.work.push_back(kernel(i, 1000 + i, 1001 + i));
  const PauseReport r = work_after_acknowledgement(o, 10);
  EXPECT_EQ(r.work.size(), kPauseReportMaxSpans);
  EXPECT_EQ(r.more, 5u);
}

TEST(PauseActivity, WithoutTheMonitorTheActivityIsUnknown) {
  EXPECT_FALSE(work_after_acknowledgement(Observations{}, 0).activity_known);
}

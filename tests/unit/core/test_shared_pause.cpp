// A paused shared worker's report (core/shared_pause.h): its JSON round-trips, and a malformed one
// is refused naming the key.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/shared_pause.h"

using namespace ptxbench;

TEST(SharedPause, TheReportRoundTripsAndAMalformedOneIsRefusedNamingTheKey) {
  PauseReport r;
  r.pause = 1;
  r.acked_ns = 1000;
  r.resumed_ns = 9000;
  r.activity_known = true;
  r.work = {{1, 2, "kernel", "harness", ""}};
  r.more = 3;
  r.dropped_records = 1;
  const PauseReport back = parse_pause_report(to_json(r));
  EXPECT_EQ(back.pause, 1);
  EXPECT_EQ(back.acked_ns, 1000u);
  EXPECT_EQ(back.resumed_ns, 9000u);
  EXPECT_TRUE(back.activity_known);
  ASSERT_EQ(back.work.size(), 1u);
  EXPECT_EQ(back.work[0].actor, "harness");
  EXPECT_EQ(back.more, 3u);
  EXPECT_EQ(back.dropped_records, 1u);
  json bad = to_json(r);
  bad["work"][0]["start_ns"] = "soon";
  try {
    parse_pause_report(bad);
    ADD_FAILURE() << "a mistyped key was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'start_ns'"), std::string::npos) << e.what();
  }
  bad = to_json(r);
  bad.erase("acked_ns");
  EXPECT_THROW(parse_pause_report(bad), Error);
}

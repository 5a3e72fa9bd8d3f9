// Back-pressure: 202 under the depth limit, 429 at it (a batch that would pass it too), 413 for a
// batch larger than the whole queue, 503 while draining; every refusal with a Retry-After but 413.
#include <gtest/gtest.h>

#include "api/admission.h"

using namespace ptxbench;
using namespace ptxbench::api;

TEST(Admission, TakesUnderTheLimitAndRefusesAtIt) {
  AdmissionOptions o;
  o.max_queue_depth = 10, o.retry_after_seconds = 3;
  QueueCounts c;
  c.queued = 6, c.leased = 2, c.done = 1000;  // finished jobs do not count
  EXPECT_TRUE(admit(c, 2, false, o).admitted());
  const Admission full = admit(c, 3, false, o);
  EXPECT_EQ(full.http_status, 429);
  EXPECT_EQ(full.retry_after_seconds, 3);
  EXPECT_NE(full.reason.find("holds 8 unfinished jobs"), std::string::npos) << full.reason;
  const Admission huge = admit({}, 11, false, o);
  EXPECT_EQ(huge.http_status, 413);
  EXPECT_EQ(huge.retry_after_seconds, 0);
  const Admission draining = admit({}, 1, true, o);
  EXPECT_EQ(draining.http_status, 503);
  EXPECT_EQ(draining.retry_after_seconds, o.draining_retry_after_seconds);
}

// The range profiler's metric lists: CUPTI's host side (no GPU) must know every name for the chips
// the harness targets, or the work counters would fail on the GPU host only.
#include <gtest/gtest.h>

#include "runner/integrity/work_counters.h"

using namespace ptxbench::integrity;

TEST(WorkCounters, HopperMetricsAreKnownToCupti) {
  EXPECT_EQ(check_work_metrics("GH100"), "");
  const auto m = work_metrics_for_chip("GH100");
  EXPECT_FALSE(m.tensor_ops.empty());
  EXPECT_EQ(m.tma_load_bytes.size(), 1u);
}

TEST(WorkCounters, BlackwellMetricsAreKnownToCupti) { EXPECT_EQ(check_work_metrics("GB100"), ""); }

TEST(WorkCounters, AChipWithoutAListSaysSo) {
  EXPECT_TRUE(work_metrics_for_chip("TU102").tensor_ops.empty());
  EXPECT_NE(check_work_metrics("TU102").find("no work metrics are listed for chip TU102"), std::string::npos);
}

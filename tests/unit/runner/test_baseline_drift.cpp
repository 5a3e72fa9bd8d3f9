// What the library's timing beside a candidate and alone says (issue 45: heat is the harness's
// problem): a hot candidate keeps its verdict once the GPU has cooled, only a GPU the health
// kernel finds slower is an infra error, and a library slowed beside the candidate and back to
// normal at once is forbidden.
#include <gtest/gtest.h>

#include "runner/baseline_drift.h"

using namespace ptxbench;

namespace {

// The library took 1.00 ms alone before the candidate, `beside` beside it, then `after` alone.
BaselineDrift drift(double beside, std::vector<double> after, double health_before = 0, double health_after = 0) {
  BaselineDrift d;
  d.before_ms = 1.0, d.beside_ms = beside, d.alone_after_ms = std::move(after);
  d.health_before_ms = health_before, d.health_after_ms = health_after;
  return d;
}

GpuState nvml(unsigned celsius, std::vector<std::string> reasons = {}, bool throttled = false) {
  GpuState s;
  s.available = true, s.temperature_c = celsius, s.reason_names = std::move(reasons), s.throttled = throttled;
  s.sm_clock_mhz = 1980, s.max_sm_clock_mhz = 1980;
  return s;
}

}  // namespace

TEST(BaselineDrift, AHotCandidateKeepsItsVerdictOnceTheGpuHasCooled) {
  // Slower beside it (the GPU heated) and right after it; back to normal after two cool-downs.
  BaselineDrift d = drift(1.25, {1.20});
  EXPECT_TRUE(needs_cool_down(d));
  d.alone_after_ms.push_back(1.08);
  EXPECT_TRUE(needs_cool_down(d));
  d.alone_after_ms.push_back(1.01);
  EXPECT_FALSE(needs_cool_down(d)) << "back to normal: no more cool-downs";
  EXPECT_FALSE(needs_health_check(d));
  const DriftDecision r = decide_baseline_drift(d, "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::cooled) << r.message;
  EXPECT_TRUE(r.keeps_verdict());
  EXPECT_EQ(r.cool_downs, 2);
  // The speedup's baseline may take the fastest timing alone after (1.01), never a slower one.
  EXPECT_DOUBLE_EQ(r.fastest_after_ms, 1.01);
  EXPECT_NE(r.message.find("thermal"), std::string::npos) << r.message;
  EXPECT_NE(r.report.find("after 2 cool-downs"), std::string::npos) << r.report;
}

TEST(BaselineDrift, OnlyAGpuTheHealthKernelFindsSlowerIsAnInfraError) {
  BaselineDrift d = drift(1.20, {1.20});
  for (int i = 0; i < kMaxCoolDowns; ++i) {
    ASSERT_TRUE(needs_cool_down(d)) << i;
    d.alone_after_ms.push_back(1.18);
  }
  EXPECT_FALSE(needs_cool_down(d)) << "bounded: " << kMaxCoolDowns << " cool-downs";
  ASSERT_TRUE(needs_health_check(d));
  // The fixed health kernel 30% slower than before the load: the GPU is faulty.
  d.health_before_ms = 0.40, d.health_after_ms = 0.52;
  DriftDecision r = decide_baseline_drift(d, "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::infra_error) << r.message;
  EXPECT_FALSE(r.keeps_verdict());
  EXPECT_NE(r.message.find("health kernel"), std::string::npos) << r.message;
  // The health kernel as before: the GPU is sound, the verdict stands, against the clean timing.
  d.health_after_ms = 0.41;
  r = decide_baseline_drift(d, "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::still_off) << r.message;
  EXPECT_TRUE(r.keeps_verdict());
  // Not timed (no reference before the load): never an infra error.
  d.health_before_ms = 0;
  EXPECT_EQ(decide_baseline_drift(d, "M=4096").outcome, DriftOutcome::still_off);
}

TEST(BaselineDrift, ALibrarySlowedBesideTheCandidateAndBackToNormalAtOnceIsForbidden) {
  BaselineDrift d = drift(1.15, {1.01});
  EXPECT_FALSE(needs_cool_down(d));
  DriftDecision r = decide_baseline_drift(d, "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::forbidden) << r.message;
  EXPECT_NE(r.message.find("15% slower beside the candidate"), std::string::npos) << r.message;
  // Slowed by less than the limit: reported (and the faster baseline is used by the judge).
  r = decide_baseline_drift(drift(1.06, {0.99}), "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::reported) << r.message;
  EXPECT_TRUE(r.keeps_verdict());
}

TEST(BaselineDrift, ALibraryFasterAloneAfterThanBeforeKeepsTheVerdictAgainstTheFaster) {
  const BaselineDrift d = drift(0.93, {0.92});
  EXPECT_FALSE(needs_cool_down(d));
  EXPECT_FALSE(needs_health_check(d));
  const DriftDecision r = decide_baseline_drift(d, "M=4096");
  EXPECT_EQ(r.outcome, DriftOutcome::faster) << r.message;
  EXPECT_DOUBLE_EQ(r.fastest_after_ms, 0.92);
}

TEST(BaselineDrift, CooledMeansNoSlowdownReportedAndTheTemperatureBackNearWhereItWas) {
  const GpuState before = nvml(40);
  EXPECT_TRUE(cooled_down(nvml(42, {"gpu_idle"}), before));
  EXPECT_FALSE(cooled_down(nvml(55, {"gpu_idle"}), before)) << "still warmer than before the candidate";
  EXPECT_FALSE(cooled_down(nvml(41, {"sw_thermal_slowdown"}, true), before));
  EXPECT_FALSE(cooled_down(nvml(41, {"sw_power_cap"}), before));
  EXPECT_TRUE(cooled_down(nvml(70), GpuState{})) << "no temperature before the load: the reasons decide";
  EXPECT_FALSE(cooled_down(GpuState{}, before)) << "without NVML the cool-down rests its longest";
}

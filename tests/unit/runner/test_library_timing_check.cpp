// The worker's side of the library's stored clean timings (runner/library_timing_check.h): the
// check's tolerance and verdict, the plan identity read from a workload's baseline_info, and the
// key a stored timing must match (docs/library-timing-cache.md).
#include <gtest/gtest.h>

#include "runner/library_timing_check.h"

using namespace ptxbench;

namespace {

TEST(LibraryTimingCheck, TheToleranceIsThreeStandardErrorsOfTheDifferenceWithinItsBounds) {
  // 3 * 0.002 * sqrt(1 + 20 / 5) = 1.342%
  EXPECT_NEAR(library_check_tolerance({1.0, 0.002, 20}, 5), 0.013416, 1e-5);
  // A very stable stored median: the floor.
  EXPECT_DOUBLE_EQ(library_check_tolerance({1.0, 0.0001, 20}, 5), kLibraryCheckMinTolerance);
  // A noisy one: never more than the cap.
  EXPECT_DOUBLE_EQ(library_check_tolerance({1.0, 0.05, 20}, 5), kLibraryCheckMaxTolerance);
  // More check samples, a tighter tolerance.
  EXPECT_LT(library_check_tolerance({1.0, 0.002, 20}, 20), library_check_tolerance({1.0, 0.002, 20}, 5));
}

TEST(LibraryTimingCheck, ACheckWithinTheToleranceIsAcceptedAndOneOutsideIsNot) {
  const StoredCleanTiming stored{2.0, 0.001, 30};  // tolerance: 3 * 0.001 * sqrt(7) = 0.79%
  auto v = judge_library_check(stored, 2.01, 5);   // +0.5%
  EXPECT_TRUE(v.accepted) << v.deviation << " " << v.tolerance;
  EXPECT_NEAR(v.deviation, 0.005, 1e-12);
  v = judge_library_check(stored, 1.99, 5);  // -0.5%: a faster check is drift too, and within
  EXPECT_TRUE(v.accepted);
  v = judge_library_check(stored, 2.04, 5);  // +2%
  EXPECT_FALSE(v.accepted);
  v = judge_library_check(stored, 1.9, 5);  // -5%
  EXPECT_FALSE(v.accepted);
  EXPECT_FALSE(judge_library_check(stored, 0, 5).accepted);          // no time
  EXPECT_FALSE(judge_library_check({0, 0.001, 30}, 2, 5).accepted);  // a stored value no timing has
}

// A stored timing with its first samples' median: a check of as many samples is compared with that
// (3 * 0.001 * sqrt(2 * 30 / 5) = 1.04%), one of another count with the median as before.
TEST(LibraryTimingCheck, ACheckOfAsManySamplesIsComparedWithTheStoredFirstSamples) {
  const StoredCleanTiming stored{4.8, 0.001, 30, 4.6, 5};
  EXPECT_NEAR(library_lead_check_tolerance(stored, 5), 0.010392, 1e-5);
  auto v = judge_library_check(stored, 4.62, 5);  // +0.43% off the first samples, -3.75% off the median
  EXPECT_TRUE(v.accepted) << v.deviation << " " << v.tolerance;
  EXPECT_TRUE(v.against_lead);
  EXPECT_NEAR(v.deviation, 4.62 / 4.6 - 1, 1e-12);
  v = judge_library_check(stored, 4.8, 5);  // the median itself is +4.3% off the first samples
  EXPECT_FALSE(v.accepted);
  v = judge_library_check(stored, 4.81, 3);  // three samples: no stored lead of three, the median
  EXPECT_FALSE(v.against_lead);
  EXPECT_TRUE(v.accepted);
  // No lead stored (a row from before): the median, as always.
  v = judge_library_check({4.8, 0.001, 30}, 4.62, 5);
  EXPECT_FALSE(v.against_lead);
  EXPECT_FALSE(v.accepted);
}

const json kCudnnInfo = {
    {"library", "cuDNN"},
    {"operation", "SDPA forward (fused flash attention), generate_stats"},
    {"version", 90100},
    {"loaded_from", "/usr/lib/libcudnn.so.9"},
    {"plans",
     {{"fwd B=2 H=16 S=4096 D=128",
       {{"plan", "eng0_k2=1"}, {"attention_kernel", "sm90_flash"}, {"build_seconds", 0.4}}},
      {"fwd B=2 H=16 S=8192 D=128",
       {{"plan", "eng0_k2=3"}, {"attention_kernel", "sm90_flash"}, {"build_seconds", 0.5}}}}},
    {"kernels", {{"fwd B=2 H=16 S=4096 D=128", {"sm90_flash"}}, {"fwd B=2 H=16 S=8192 D=128", {"sm90_flash"}}}}};

TEST(LibraryTimingCheck, ThePlanIsTheShapesOwnEntriesWithoutBuildSeconds) {
  const json plan = library_plan_identity(kCudnnInfo, "B=2 H=16 S=4096 D=128");
  EXPECT_EQ(plan["plans"].size(), 1u) << plan.dump();
  EXPECT_EQ(plan["plans"]["fwd B=2 H=16 S=4096 D=128"]["plan"], "eng0_k2=1");
  EXPECT_FALSE(plan["plans"]["fwd B=2 H=16 S=4096 D=128"].contains("build_seconds")) << plan.dump();
  EXPECT_EQ(plan["operation"], kCudnnInfo["operation"]);
  json later = kCudnnInfo;
  later["plans"]["fwd B=2 H=16 S=4096 D=128"]["build_seconds"] = 0.9;  // another run: the same plan
  EXPECT_EQ(library_plan_identity(later, "B=2 H=16 S=4096 D=128"), plan);
  later["plans"]["fwd B=2 H=16 S=4096 D=128"]["plan"] = "eng1_k2=1";
  EXPECT_NE(library_plan_identity(later, "B=2 H=16 S=4096 D=128"), plan);
  // cuBLASLt: the shape's algorithm and kernels.
  const json lt = {
      {"library", "cuBLASLt"},
      {"version", 130000},
      {"compute", "CUBLAS_COMPUTE_32F"},
      {"shapes", {{"M=4096 N=4096 K=4096", {{"algorithm", "heuristic result 0 of 8"}, {"kernels", {"sm90_xmma"}}}}}},
      {"plan_seconds", {{"M=4096 N=4096 K=4096", 0.2}}}};
  // The worker labels a shape by its sorted dims (shape_label), the workload in its own order.
  const json p = library_plan_identity(lt, "K=4096 M=4096 N=4096");
  EXPECT_EQ(p["shapes"]["M=4096 N=4096 K=4096"]["algorithm"], "heuristic result 0 of 8") << p.dump();
  EXPECT_FALSE(p.contains("plan_seconds"));
  EXPECT_FALSE(
      library_plan_identity(lt, "K=4096 M=8192 N=4096").contains("shapes"));  // another shape: none of its entries
  const json sorted = library_plan_identity(kCudnnInfo, "B=2 D=128 H=16 S=8192");
  ASSERT_EQ(sorted["plans"].size(), 1u) << sorted.dump();
  EXPECT_EQ(sorted["plans"]["fwd B=2 H=16 S=8192 D=128"]["plan"], "eng0_k2=3");
}

TEST(LibraryTimingCheck, AStoredTimingMatchesOnlyTheSameGpuDriverClocksLibraryAndPlan) {
  const json env = {{"gpu_uuid", "GPU-1"}, {"driver", "580.1"}, {"clocks", {{"power_limit_w", 700}}}};
  const std::string label = "B=2 H=16 S=4096 D=128";
  const json key = library_timing_key(env, kCudnnInfo, label);
  EXPECT_EQ(key["library"], "cuDNN");
  EXPECT_EQ(key["library_version"], "90100");
  json row = key;
  row["median_ms"] = 1.0;
  std::string why;
  EXPECT_EQ(matching_stored_timing(json::array({row}), key, &why), 0);
  for (const auto& [field, other] : std::vector<std::pair<std::string, json>>{{"gpu_uuid", "GPU-2"},
                                                                              {"driver", "580.2"},
                                                                              {"clocks", {{"power_limit_w", 500}}},
                                                                              {"library_version", "90200"},
                                                                              {"plan", json::object()}}) {
    json r = row;
    r[field] = other;
    EXPECT_EQ(matching_stored_timing(json::array({r}), key, &why), -1) << field;
    EXPECT_NE(why.find(field + " differs"), std::string::npos) << why;
    // Beside the matching row, the matching one is found.
    EXPECT_EQ(matching_stored_timing(json::array({r, row}), key, &why), 1) << field;
  }
  EXPECT_EQ(matching_stored_timing(json::array(), key, &why), -1);
  EXPECT_NE(why.find("no stored timing"), std::string::npos) << why;
}

}  // namespace

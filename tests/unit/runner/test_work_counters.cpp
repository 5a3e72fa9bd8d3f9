// The range profiler's metric lists: CUPTI's host side (no GPU) must know every name for the chips
// the harness targets, and what is collected must fit one pass (nothing is replayed: a metric of a
// second pass reads NaN on the GPU, as every tensor figure did on the H100 with the full GH100 list).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "runner/integrity/work_counters.h"

using namespace ptxbench::integrity;

namespace {
bool has(const std::vector<std::string>& v, const std::string& part) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}
}  // namespace

TEST(WorkCounters, HopperMetricsAreKnownToCupti) {
  EXPECT_EQ(check_work_metrics("GH100"), "");
  const auto m = work_metrics_for_chip("GH100");
  EXPECT_FALSE(m.tensor_ops.empty());
  EXPECT_FALSE(m.tensor_insts.empty());
  EXPECT_EQ(m.tma_load_bytes.size(), 1u);
}

TEST(WorkCounters, HopperOnePassHoldsTheProblemsTypesAndLeavesTheRestNamed) {
  const auto one = one_pass_work_metrics("GH100");
  EXPECT_GT(one.passes_of_the_full_list, 1u);  // why the selection exists
  EXPECT_TRUE(has(one.metrics.tensor_ops, "hgmma_src_bf16"));
  EXPECT_TRUE(has(one.metrics.tensor_ops, "hgmma_src_fp16"));
  EXPECT_TRUE(has(one.metrics.tensor_ops, "src_fp8"));
  EXPECT_EQ(one.metrics.tma_load_bytes.size(), 1u);
  EXPECT_EQ(one.metrics.tma_store_bytes.size(), 2u);
  EXPECT_FALSE(one.uncounted.empty());
  size_t uncounted_tensor = 0;
  for (const auto& u : one.uncounted) uncounted_tensor += u.find("tensor") != std::string::npos;
  EXPECT_EQ(one.metrics.tensor_ops.size() + uncounted_tensor, work_metrics_for_chip("GH100").tensor_ops.size());
  EXPECT_EQ(one.metrics.other_math.size(), 3u);  // FMA, its fp16 type, FP64: the other pipes' bound
  for (const auto& u : one.uncounted) EXPECT_FALSE(has(one.metrics.tensor_ops, u)) << u;
}

TEST(WorkCounters, BlackwellMetricsAreKnownToCupti) { EXPECT_EQ(check_work_metrics("GB100"), ""); }

TEST(WorkCounters, ThePreferredTypeGoesFirstWhereThePassHoldsOnlyOne) {
  const auto plain = one_pass_work_metrics("GB100");
  EXPECT_TRUE(has(plain.metrics.tensor_ops, "utchmma_src_bf16"));
  const auto fp8 = one_pass_work_metrics("GB100", nullptr, {"fp8"});
  EXPECT_TRUE(has(fp8.metrics.tensor_ops, "fp8"));
  EXPECT_TRUE(has(fp8.uncounted, "utchmma_src_bf16") || has(fp8.metrics.tensor_ops, "utchmma_src_bf16"));
}

TEST(WorkCounters, AChipWithoutAListSaysSo) {
  EXPECT_TRUE(work_metrics_for_chip("TU102").tensor_ops.empty());
  EXPECT_NE(check_work_metrics("TU102").find("no work metrics are listed for chip TU102"), std::string::npos);
  EXPECT_THROW(one_pass_work_metrics("TU102"), ptxbench::Error);
}

// The work formulas' metric lists (probes/work_metrics.h) against CUPTI's host side (no GPU): every
// name must be known for the chips the harness targets, and each list must fit ONE pass (nothing is
// replayed: a metric of a second pass reads NaN on the GPU, as every tensor figure did on the H100
// with the first GH100 list). Where no one pass holds a type's formula, it has none (the flag stays
// unknown there), never a partial one.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "probes/work_metrics.h"
#include "runner/integrity/range_profiler.h"
#include "runner/integrity/work_counters.h"

using namespace ptxbench;

namespace {
bool names(const std::vector<std::string>& v, const std::string& part) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}
}  // namespace

TEST(WorkCounters, EveryHopperFormulaFitsOnePass) {
  for (const char* type : {"bf16", "fp16", "fp8"}) EXPECT_EQ(check_work_formula("GH100", type), "") << type;
}

TEST(WorkCounters, HoppersBf16FormulaCountsEveryPipeApart) {
  const auto f = work_formula("GH100", "bf16");
  ASSERT_TRUE(f);
  const auto m = f->metrics();
  EXPECT_TRUE(names(m, "hgmma_src_bf16_dst_fp32_sparsity_off")) << "the target: the problem type's dense wgmmas";
  EXPECT_TRUE(names(m, "hmma_type_hmma_hgmma_qgmma_cycles")) << "older MMAs by their pipe's cycles";
  EXPECT_TRUE(names(m, "imma_cycles"));
  EXPECT_TRUE(names(m, "dmma_cycles"));
  EXPECT_TRUE(names(m, "hmma_type_hfma2")) << "HFMA2.MMA by its own count";
  EXPECT_TRUE(names(m, "pipe_fma_realtime"));
  EXPECT_TRUE(names(m, "pipe_alu_realtime"));
  EXPECT_TRUE(names(m, "pipe_xu_realtime"));
  EXPECT_TRUE(names(m, "fp64_cycles"));
  EXPECT_TRUE(names(m, "sm__inst_executed_realtime")) << "every other instruction";
  EXPECT_TRUE(names(m, "op_tma_ld"));
  EXPECT_TRUE(names(m, "lts__t_sectors_srcunit_tex_op_read")) << "every global byte read, whatever the path";
  EXPECT_EQ(m.front(), f->target_ops.front().metric) << "the target first";
}

TEST(WorkCounters, BlackwellFormulasFitOnePassOrThereIsNone) {
  EXPECT_EQ(check_work_formula("GB100", "bf16"), "");
  EXPECT_EQ(check_work_formula("GB100", "fp16"), "");
  // The tcgen05 fp8 path alone needs two passes: no formula, so no flag (never a partial one).
  EXPECT_FALSE(work_formula("GB100", "fp8"));
  EXPECT_NE(check_work_formula("GB100", "fp8").find("no work formula"), std::string::npos);
}

TEST(WorkCounters, TheFiguresComeFromTheValuesAndAMissingOneIsNamed) {
  const auto f = work_formula("GH100", "bf16");
  ASSERT_TRUE(f);
  std::map<std::string, double> v;
  for (const auto& m : f->metrics()) v[m] = 0;
  v["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum"] = 1024 * 3;
  v["lts__t_sectors_srcunit_tex_op_read.sum"] = 10;
  v["sm__inst_executed_realtime.sum"] = 7;
  v["sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.sum"] = 5;  // 3 the target's, 2 older MMAs'
  WorkFigures g = work_figures(*f, v);
  EXPECT_TRUE(g.unreadable.empty());
  EXPECT_DOUBLE_EQ(g.target_ops, 1024 * 3);
  EXPECT_DOUBLE_EQ(g.global_load_bytes, 320);
  EXPECT_DOUBLE_EQ(g.other_math_flops, 7 + 2 * 1024.0);
  v.erase("sm__inst_executed_realtime.sum");
  g = work_figures(*f, v);
  ASSERT_EQ(g.unreadable.size(), 1u);
  EXPECT_EQ(g.unreadable[0], "sm__inst_executed_realtime.sum");
}

TEST(WorkCounters, AChipOrTypeWithoutAFormulaSaysSo) {
  EXPECT_FALSE(work_formula("TU102", "bf16"));
  EXPECT_FALSE(work_formula("GH100", "int4"));
  EXPECT_NE(check_work_formula("TU102", "bf16").find("no work formula for bf16 operands on chip TU102"),
            std::string::npos);
  EXPECT_THROW(passes_of("GH100", nullptr, {"sm__no_such_metric.sum"}), Error);
}

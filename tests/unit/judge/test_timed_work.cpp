// The target work of the timed calls, by allowlist (issues 30 and 45): the judge's reading of the
// worker's range over every timed sample of a shape, less the library's calls and the harness's
// work in it (judge/timed_work.h), through the chip's work formula (probes/work_metrics.h).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "judge/timed_work.h"
#include "probes/work_metrics.h"
#include "runner/timed_work.h"

using namespace ptxbench;

namespace {

constexpr double kFlops = 1000, kOperands = 100;

const std::string kTarget = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum";
const std::string kInstructions = "sm__inst_executed_realtime.sum";
const std::string kHmmaCycles = "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.sum";
const std::string kTmaLoad = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";
const std::string kTmaStore = "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum";
const std::string kL2Reads = "lts__t_sectors_srcunit_tex_op_read.sum";

// One range's figures, as the GH100 bf16 formula's metrics would read them.
struct Figures {
  double target = 0, other = 0, tma_load = 0, global_load = 0, tma_store = 0;
  Figures operator+(const Figures& o) const {
    return {target + o.target, other + o.other, tma_load + o.tma_load, global_load + o.global_load,
            tma_store + o.tma_store};
  }
  Figures operator*(double k) const { return {target * k, other * k, tma_load * k, global_load * k, tma_store * k}; }
};

json values(const Figures& f) {
  json v = json::object();
  for (const auto& m : work_formula("GH100", "bf16")->metrics()) v[m] = 0.0;
  v[kTarget] = f.target;
  v[kHmmaCycles] = f.target / 1024;  // dense warpgroup MMAs at the pipe's peak
  v[kInstructions] = f.other;        // every other instruction counts one operation
  v[kTmaLoad] = f.tma_load;
  v[kTmaStore] = f.tma_store;
  v[kL2Reads] = f.global_load / 32;
  return {{"values", v}};
}

// The library's call: the whole problem on warpgroup MMAs, its operands three times over by TMA.
const Figures kLibraryCall{kFlops, 0.01 * kFlops, 3 * kOperands, 3 * kOperands, kOperands};

// A shape's timing event: `calls` candidate calls doing `cand` in all, `lib_calls` library calls in
// the range, and every sample, either side, `harness` of the harness's own work (inputs, checks;
// the backward problems regenerate their forward outputs with the library).
json timing_event(int calls, Figures cand, int lib_calls = 4, int m = 8, Figures harness = {}) {
  const int n = calls + lib_calls;
  return {{"shape", {{"M", m}}},
          {"flops", kFlops},
          {"timed_work",
           {{"chip", "GH100"},
            {"math_class", "bf16"},
            {"candidate_calls", calls},
            {"library_calls", lib_calls},
            {"samples", values(cand + kLibraryCall * lib_calls + harness * n)},
            {"library", {{"calls", 2}, {"work", values(kLibraryCall * 2)}}},
            {"library_samples", {{"samples", 2}, {"work", values((kLibraryCall + harness) * 2)}}}}}};
}

// `calls` honest calls: the FLOPs on warpgroup MMAs, a little softmax-like other math, every
// operand byte twice by TMA and 3% by plain loads.
Figures honest(int calls) { return Figures{kFlops, 0.03 * kFlops, 2 * kOperands, 2.06 * kOperands, 0} * calls; }

TargetWork strict() {
  TargetWork k;
  k.tensor_flop_share = 0.9;
  k.max_target_flop_ratio = 1.1;
  k.max_other_math_share = 0.1;
  k.tma_load_share = 0.9;
  return k;
}

TimedWorkCheck check(const std::vector<json>& events, const TargetWork& k = strict()) {
  return check_timed_work(
      events, k, [](const json&) { return kOperands; }, [](const json& s) { return "M=" + s.at("M").dump(); });
}

}  // namespace

TEST(TimedWork, AnHonestKernelsSharesAreItsOwnWithTheLibrarysCallsTakenOut) {
  const auto c = check({timing_event(20, honest(20))});
  ASSERT_TRUE(c.counted) << c.unavailable;
  EXPECT_TRUE(c.does_the_work) << c.shortfall;
  EXPECT_NEAR(*c.tensor_flop_share, 1.0, 1e-9);
  EXPECT_NEAR(*c.other_math_share, 0.03, 1e-9);
  EXPECT_NEAR(*c.tma_load_share, 2.0 / 2.06, 1e-9);
  EXPECT_NEAR(*c.tma_byte_share, 2.0, 1e-9);
  EXPECT_NEAR(c.shapes[0].at("library").at("target_flop_ratio").get<double>(), 1.0, 1e-9);
}

TEST(TimedWork, TargetsRunInOneTimedCallOfTwentyFallShort) {
  // The guessing kernel: full target work in the one call it took for a counted one, none in the rest.
  const auto c = check({timing_event(20, honest(1))});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.05, 1e-9);
  EXPECT_NE(c.shortfall.find("5.0% of the FLOPs"), std::string::npos) << c.shortfall;
  EXPECT_NE(c.shortfall.find("M=8"), std::string::npos);
}

TEST(TimedWork, TheLibrarysWorkIsNeverTheCandidates) {
  const auto c = check({timing_event(10, {}, 10)});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.0, 1e-9);
  EXPECT_NEAR(*c.tma_byte_share, 0.0, 1e-9);
}

TEST(TimedWork, TheWorstShapeDecides) {
  Figures short_of_flops = honest(10);
  short_of_flops.target = 4 * kFlops;
  const auto c = check({timing_event(10, honest(10)), timing_event(10, short_of_flops, 4, 16)});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.4, 1e-9);
  EXPECT_NE(c.shortfall.find("M=16"), std::string::npos) << c.shortfall;
  EXPECT_EQ(c.shapes.size(), 2u);
}

TEST(TimedWork, OperandsBroughtByOtherLoadsBesideAFewTmaCopiesFallShort) {
  // cp.async brings the operands, a few TMA copies on the side: the TMA's share of every byte read.
  Figures f = honest(10);
  f.tma_load = 0.2 * kOperands * 10;
  f.global_load = 2 * kOperands * 10;
  const auto c = check({timing_event(10, f)});
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tma_load_share, 0.1, 1e-9);
  EXPECT_NE(c.shortfall.find("the TMA brought 10.0% of the global bytes"), std::string::npos) << c.shortfall;
}

TEST(TimedWork, TmaBoxesPastATinyTensorAreCreditedWithWhatTheyRead) {
  // cp.async brings the operands; beside them TMA copies of a 256x256 box over a 16x16 tensor,
  // counted whole by the TMA's counter (9x the operands' bytes), read 512 bytes each.
  Figures f = honest(10);
  f.tma_load = 9 * kOperands * 10;
  f.global_load = 2 * kOperands * 10;
  json ev = timing_event(10, f);
  EXPECT_TRUE(check({ev}).does_the_work);  // whole boxes credited: the attack's share would be 1
  ev["timed_work"]["tma_box_fill"] = 512.0 / 131072;
  const auto c = check({ev});
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tma_load_share, 512.0 / 131072, 1e-9);
  EXPECT_NEAR(c.shapes[0].at("tma_box_fill").get<double>(), 512.0 / 131072, 1e-12);
}

TEST(TimedWork, TmaStoresRepeatedEarnNoLoadShare) {
  Figures f = honest(10);
  f.tma_load = 0;
  f.tma_store = 100 * kOperands * 10;  // the same tile stored again and again
  const auto c = check({timing_event(10, f)});
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tma_load_share, 0.0, 1e-9);
}

TEST(TimedWork, OlderMmasDoingTheMathBesideWastedWarpgroupMmasAreNotTheWork) {
  // mma.sync does the problem's FLOPs (683 a cycle of the HMMA pipe, measured), the warpgroup MMAs
  // waste as many in the same pipe: its cycles past the target's own at the peak are other work.
  json e = timing_event(10, honest(10));
  json& v = e["timed_work"]["samples"]["values"];
  v[kHmmaCycles] = v[kHmmaCycles].get<double>() + 10 * kFlops / 683;
  const auto c = check({e});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.other_math_share, 0.03 + 1024.0 / 683, 1e-6);
  EXPECT_NE(c.shortfall.find("other instructions"), std::string::npos) << c.shortfall;
}

TEST(TimedWork, HalfFmasOnTheTensorPipeCountAsTheirFlopsNotAsMmas) {
  // ptxas moves immediates with HFMA2.MMA, inside loops too: 4 FLOPs a lane, never an MMA's price.
  json e = timing_event(10, honest(10));
  json& v = e["timed_work"]["samples"]["values"];
  const double moves = 10 * 0.01 * kFlops / 128;  // 1% of the FLOPs' worth of them
  v["sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"] = moves;
  v[kInstructions] = v[kInstructions].get<double>() + moves;
  const auto c = check({e});
  EXPECT_TRUE(c.does_the_work) << c.shortfall;
  EXPECT_NEAR(*c.other_math_share, 0.04, 1e-9);
}

TEST(TimedWork, ASparseWarpgroupMmaIsNoTargetAndHidesNothing) {
  // Sparse wgmmas (twice the dense operations a cycle) are not the target: their cycles are other
  // work, and they cannot offset another kernel's older MMAs in the same pipe.
  json e = timing_event(10, honest(10));
  json& v = e["timed_work"]["samples"]["values"];
  v[kHmmaCycles] = v[kHmmaCycles].get<double>() + 10 * kFlops / 1024;  // the sparse ones, 2x the FLOPs
  const auto c = check({e});
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.other_math_share, 1.03, 1e-9);
}

TEST(TimedWork, WastedWarpgroupMmasBesideSimtMathAreNotTheWork) {
  json e = timing_event(10, honest(10));
  // The FMA pipe could have done the problem's FLOPs again in every call (64 a warp instruction).
  e["timed_work"]["samples"]["values"]["TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.sum"] =
      10 * 1.2 * kFlops / 64;
  e["timed_work"]["samples"]["values"][kInstructions] =
      e["timed_work"]["samples"]["values"][kInstructions].get<double>() + 10 * 1.2 * kFlops / 64;
  const auto c = check({e});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NE(c.shortfall.find("up to 123%"), std::string::npos) << c.shortfall;
  EXPECT_TRUE(check({timing_event(10, honest(10))}).does_the_work);
}

TEST(TimedWork, TargetWorkPastTheRatioRaisesNothing) {
  Figures f = honest(10);
  f.target = 3 * kFlops * 10;
  const auto c = check({timing_event(10, f)});
  EXPECT_TRUE(c.does_the_work) << c.shortfall;
  EXPECT_NEAR(*c.tensor_flop_share, 1.1, 1e-9);
  EXPECT_NEAR(c.shapes[0].at("target_flop_ratio").get<double>(), 3.0, 1e-9);
}

TEST(TimedWork, AMulticastTmaReadOnceAtTheL2IsStillAllTma) {
  Figures f = honest(10);
  f.global_load = f.tma_load / 2;  // one L2 read, two receiving SMs
  const auto c = check({timing_event(10, f)});
  EXPECT_TRUE(c.does_the_work) << c.shortfall;
  EXPECT_NEAR(*c.tma_load_share, 1.0, 1e-9);
}

TEST(TimedWork, AToolFailureIsUnknownNotAShortfall) {
  json e = timing_event(10, honest(10));
  e["timed_work"] = {{"error", "the range profiler did not start: CUPTI_ERROR_NOT_SUPPORTED"}};
  const auto c = check({e});
  EXPECT_FALSE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_TRUE(c.shortfall.empty());
  EXPECT_NE(c.unavailable.find("CUPTI_ERROR_NOT_SUPPORTED"), std::string::npos);
  EXPECT_FALSE(c.tensor_flop_share.has_value());
}

TEST(TimedWork, AMetricThatReadNanLeavesTheShapeUnknown) {
  json e = timing_event(10, honest(10));
  e["timed_work"]["samples"]["values"][kTarget] = nullptr;
  const auto c = check({e});
  EXPECT_FALSE(c.counted);
  EXPECT_NE(c.unavailable.find("hgmma_src_bf16"), std::string::npos) << c.unavailable;
  json gone = timing_event(10, honest(10));
  gone["timed_work"]["samples"]["values"].erase(kL2Reads);  // a metric the worker did not count
  EXPECT_FALSE(check({gone}).counted);
}

TEST(TimedWork, AChipOrTypeWithoutAFormulaIsUnknown) {
  json e = timing_event(10, honest(10));
  e["timed_work"]["chip"] = "TU102";
  const auto c = check({e});
  EXPECT_FALSE(c.counted);
  EXPECT_NE(c.unavailable.find("no work formula"), std::string::npos) << c.unavailable;
}

TEST(TimedWork, AShapeWithoutFiguresLeavesEveryShapeUnknown) {
  json bare = timing_event(10, honest(10), 4, 16);
  bare.erase("timed_work");
  const auto c = check({timing_event(10, honest(10)), bare});
  EXPECT_FALSE(c.counted);
  EXPECT_NE(c.unavailable.find("M=16"), std::string::npos) << c.unavailable;
  EXPECT_TRUE(check({}).unavailable.find("nothing was timed") != std::string::npos);
}

TEST(TimedWork, LibraryCallsInTheRangeNeedTheLibrarysOwnRange) {
  json e = timing_event(10, honest(10));
  e["timed_work"].erase("library");
  EXPECT_FALSE(check({e}).counted);
}

TEST(TimedWork, AMalformedObjectIsAnInputError) {
  json e = timing_event(10, honest(10));
  e["timed_work"]["samples"].erase("values");
  EXPECT_THROW(check({e}), InputError);
  json z = timing_event(10, honest(10));
  z["timed_work"]["library"]["calls"] = 0;
  EXPECT_THROW(check({z}), InputError);
}

TEST(TimedWork, TheWorkerSideCountsNothingWithoutCounters) {
  TimedWork w(nullptr);
  EXPECT_FALSE(w.on());
  w.open(
      2, [] { FAIL() << "no library call without counters"; }, [] { FAIL() << "no library sample either"; }, nullptr);
  w.close(10, 10, nullptr);
  EXPECT_TRUE(w.result().is_null());
  const json j = call_work_json({"samples", {{"a", 4.0}, {"b", std::nan("")}}});
  EXPECT_EQ(j.at("values").at("a"), 4.0);
  EXPECT_TRUE(j.at("values").at("b").is_null());
}

TEST(TimedWork, TheHarnesssOwnWorkInEverySampleIsNeverTheCandidates) {
  // A backward problem: every sample regenerates the forward outputs (0.8 of the FLOPs on warpgroup
  // MMAs, with TMA), the candidate's SIMT kernel does none. Without the harness's share taken out
  // it would read 1.6 (seen on the H100 before the library samples' range existed).
  const Figures regenerate{0.8 * kFlops, 0.02 * kFlops, 5 * kOperands, 5 * kOperands, 0};
  const auto simt = check({timing_event(20, {}, 20, 8, regenerate)});
  ASSERT_TRUE(simt.counted);
  EXPECT_FALSE(simt.does_the_work);
  EXPECT_NEAR(*simt.tensor_flop_share, 0.0, 1e-9);
  EXPECT_NEAR(*simt.tma_byte_share, 0.0, 1e-9);
  EXPECT_NEAR(simt.shapes[0].at("harness_per_sample").at("target_flop_ratio").get<double>(), 0.8, 1e-9);
  const auto ok = check({timing_event(20, honest(20), 20, 8, regenerate)});
  EXPECT_TRUE(ok.does_the_work) << ok.shortfall;
  EXPECT_NEAR(*ok.tensor_flop_share, 1.0, 1e-9);
  EXPECT_NEAR(*ok.tma_byte_share, 2.0, 1e-9);
}

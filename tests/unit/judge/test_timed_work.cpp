// The target work of the timed calls (issue 30): the judge's reading of the worker's range over
// every timed sample of a shape, less the library's calls in it (judge/timed_work.h).
#include <gtest/gtest.h>

#include "core/error.h"
#include "judge/timed_work.h"
#include "runner/timed_work.h"

using namespace ptxbench;

namespace {

constexpr double kFlops = 1000, kOperands = 100;

json work(double ops, double load, double store = 0, std::vector<std::string> unreadable = {}) {
  return {{"tensor_ops", ops},
          {"tensor_insts", ops / 64},
          {"tma_load_bytes", load},
          {"tma_store_bytes", store},
          {"unreadable", unreadable}};
}

// A shape's timing event: `calls` candidate calls doing `cand_ops` and `cand_bytes` in all, and
// `lib_calls` library calls in the range, each doing the whole problem on tensor cores.
// Every sample, either side, also holds `harness_ops` and `harness_bytes` of the harness's own work
// (the backward problems regenerate their forward outputs with the library).
json timing_event(int calls, double cand_ops, double cand_bytes, int lib_calls = 4, int m = 8, double harness_ops = 0,
                  double harness_bytes = 0) {
  const double lib_ops = kFlops / kTensorFlopsPerOp, lib_bytes = 3 * kOperands;
  const int n = calls + lib_calls;
  return {
      {"shape", {{"M", m}}},
      {"flops", kFlops},
      {"timed_work",
       {{"chip", "GH100"},
        {"uncounted_types", {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"}},
        {"candidate_calls", calls},
        {"library_calls", lib_calls},
        {"samples", work(cand_ops + lib_calls * lib_ops + n * harness_ops,
                         cand_bytes + lib_calls * lib_bytes * 0.75 + n * harness_bytes, lib_calls * lib_bytes * 0.25)},
        {"library", {{"calls", 2}, {"work", work(2 * lib_ops, 2 * lib_bytes * 0.75, 2 * lib_bytes * 0.25)}}},
        {"library_samples",
         {{"samples", 2},
          {"work",
           work(2 * (lib_ops + harness_ops), 2 * (lib_bytes * 0.75 + harness_bytes), 2 * lib_bytes * 0.25)}}}}}};
}

TimedWorkCheck check(const std::vector<json>& events) {
  return check_timed_work(
      events, 0.5, 0.5, [](const json&) { return kOperands; }, [](const json& s) { return "M=" + s.at("M").dump(); });
}

}  // namespace

TEST(TimedWork, AnHonestKernelsShareIsItsOwnWithTheLibrarysCallsTakenOut) {
  const auto c = check({timing_event(20, 20 * kFlops / kTensorFlopsPerOp, 20 * 2 * kOperands)});
  ASSERT_TRUE(c.counted) << c.unavailable;
  EXPECT_TRUE(c.does_the_work) << c.shortfall;
  EXPECT_NEAR(*c.tensor_flop_share, 1.0, 1e-9);
  EXPECT_NEAR(*c.tma_byte_share, 2.0, 1e-9);
  EXPECT_NEAR(c.shapes[0].at("library").at("tensor_flop_share").get<double>(), 1.0, 1e-9);
  EXPECT_EQ(c.shapes[0].at("uncounted_types").size(), 1u);
}

TEST(TimedWork, TargetsRunInOneTimedCallOfTwentyFallShort) {
  // The guessing kernel: full target work in the one call it took for the counted one, SIMT in the rest.
  const auto c = check({timing_event(20, kFlops / kTensorFlopsPerOp, 2 * kOperands)});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.05, 1e-9);
  EXPECT_NE(c.shortfall.find("5.0% of the FLOPs"), std::string::npos) << c.shortfall;
  EXPECT_NE(c.shortfall.find("M=8"), std::string::npos);
}

TEST(TimedWork, TheLibrarysWorkIsNeverTheCandidates) {
  const auto c = check({timing_event(10, 0, 0, 10)});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.0, 1e-9);
  EXPECT_NEAR(*c.tma_byte_share, 0.0, 1e-9);
}

TEST(TimedWork, TheSmallestShapeDecides) {
  const auto c =
      check({timing_event(10, 10 * kFlops, 10 * kOperands), timing_event(10, 4 * kFlops, 10 * kOperands, 4, 16)});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NEAR(*c.tensor_flop_share, 0.4, 1e-9);
  EXPECT_NE(c.shortfall.find("M=16"), std::string::npos) << c.shortfall;
  EXPECT_EQ(c.shapes.size(), 2u);
}

TEST(TimedWork, TooFewTmaBytesFallShortEvenWithTheFlops) {
  const auto c = check({timing_event(10, 10 * kFlops, 10 * 0.1 * kOperands)});
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NE(c.shortfall.find("TMA moved"), std::string::npos) << c.shortfall;
}

TEST(TimedWork, AToolFailureIsUnknownNotAShortfall) {
  json e = timing_event(10, 10 * kFlops, 10 * kOperands);
  e["timed_work"] = {{"error", "the range profiler did not start: CUPTI_ERROR_NOT_SUPPORTED"}};
  const auto c = check({e});
  EXPECT_FALSE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_TRUE(c.shortfall.empty());
  EXPECT_NE(c.unavailable.find("CUPTI_ERROR_NOT_SUPPORTED"), std::string::npos);
  EXPECT_FALSE(c.tensor_flop_share.has_value());
}

TEST(TimedWork, AMetricThatReadNanLeavesTheShapeUnknown) {
  json e = timing_event(10, 10 * kFlops, 10 * kOperands);
  e["timed_work"]["samples"]["unreadable"] = {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"};
  const auto c = check({e});
  EXPECT_FALSE(c.counted);
  EXPECT_NE(c.unavailable.find("hgmma_src_bf16"), std::string::npos) << c.unavailable;
}

TEST(TimedWork, AShapeWithoutFiguresLeavesEveryShapeUnknown) {
  json bare = timing_event(10, 10 * kFlops, 10 * kOperands, 4, 16);
  bare.erase("timed_work");
  const auto c = check({timing_event(10, 10 * kFlops, 10 * kOperands), bare});
  EXPECT_FALSE(c.counted);
  EXPECT_NE(c.unavailable.find("M=16"), std::string::npos) << c.unavailable;
  EXPECT_TRUE(check({}).unavailable.find("nothing was timed") != std::string::npos);
}

TEST(TimedWork, LibraryCallsInTheRangeNeedTheLibrarysOwnRange) {
  json e = timing_event(10, 10 * kFlops, 10 * kOperands);
  e["timed_work"].erase("library");
  EXPECT_FALSE(check({e}).counted);
}

TEST(TimedWork, AMalformedObjectIsAnInputError) {
  json e = timing_event(10, 10 * kFlops, 10 * kOperands);
  e["timed_work"]["samples"].erase("tensor_ops");
  EXPECT_THROW(check({e}), InputError);
  json z = timing_event(10, 10 * kFlops, 10 * kOperands);
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
  const json j = call_work_json({"samples", 1, 2, 3, 4, 5, {"x"}});
  EXPECT_EQ(j.at("tma_store_bytes"), 4.0);
  EXPECT_EQ(j.at("unreadable"), json({"x"}));
}

TEST(TimedWork, WastedWarpgroupMmasBesideSimtMathAreNotTheWork) {
  json e = timing_event(10, 10 * kFlops, 10 * 2 * kOperands);
  // The FMA pipe could have done the problem's FLOPs again in every call.
  e["timed_work"]["samples"]["other_math_flops"] = 10 * 1.2 * kFlops;
  const auto c = check({e});
  ASSERT_TRUE(c.counted);
  EXPECT_FALSE(c.does_the_work);
  EXPECT_NE(c.shortfall.find("FMA and FP64 pipes could have done up to 120%"), std::string::npos) << c.shortfall;
  EXPECT_NEAR(c.shapes[0].at("other_math_flop_bound").get<double>(), 1.2, 1e-9);
  e["timed_work"]["samples"]["other_math_flops"] = 10 * 0.05 * kFlops;  // softmax, epilogue, addresses
  EXPECT_TRUE(check({e}).does_the_work);
}

TEST(TimedWork, TheHarnesssOwnWorkInEverySampleIsNeverTheCandidates) {
  // A backward problem: every sample regenerates the forward outputs (0.8 of the FLOPs on tensor
  // cores, with TMA), the candidate's SIMT kernel does none. Without the harness's share taken out
  // it would read 1.6 (seen on the H100 before the library samples' range existed).
  const auto simt = check({timing_event(20, 0, 0, 20, 8, 0.8 * kFlops, 5 * kOperands)});
  ASSERT_TRUE(simt.counted);
  EXPECT_FALSE(simt.does_the_work);
  EXPECT_NEAR(*simt.tensor_flop_share, 0.0, 1e-9);
  EXPECT_NEAR(*simt.tma_byte_share, 0.0, 1e-9);
  EXPECT_NEAR(simt.shapes[0].at("harness_per_sample").at("tensor_flop_share").get<double>(), 0.8, 1e-9);
  const auto honest = check({timing_event(20, 20 * kFlops, 20 * 2 * kOperands, 20, 8, 0.8 * kFlops, 5 * kOperands)});
  EXPECT_TRUE(honest.does_the_work) << honest.shortfall;
  EXPECT_NEAR(*honest.tensor_flop_share, 1.0, 1e-9);
  EXPECT_NEAR(*honest.tma_byte_share, 2.0, 1e-9);
}

// The SASS listing by kernel and offset, the FLOPs of tensor instructions, and counted
// instructions read through a listing.
#include <gtest/gtest.h>

#include "compile/sass_listing.h"
#include "core/error.h"
#include "judge/target_counts.h"

using namespace ptxbench;

namespace {

const char* kListing = R"SASS(
	code for sm_90a
		Function : _Z6kernelPf
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                  /* 0x00000a00ff017b82 */
                                                                                           /* 0x000fe40000000800 */
        /*0010*/                   UTMALDG.2D [UR8], [UR4] ;                               /* 0x00000008040075b4 */
        /*0020*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24, gsb0 ;   /* 0x03e00004181879f0 */
        /*0030*/              @!P0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT, gsb0 ;
        /*0040*/                   HMMA.16816.F32.BF16 R4, R8, R12, R4 ;
        /*0050*/                   EXIT ;
		.........
		Function : _Z5otherv
        /*0000*/                   EXIT ;
)SASS";

TEST(SassListing, ParsesKernelsOffsetsAndOpcodes) {
  const SassListing l = parse_sass_functions(kListing);
  ASSERT_EQ(l.size(), 2u);
  const auto& k = l.at("_Z6kernelPf");
  ASSERT_EQ(k.size(), 6u);
  EXPECT_EQ(k.at(0x10).opcode, "UTMALDG");
  EXPECT_EQ(k.at(0x20).opcode, "HGMMA");
  EXPECT_EQ(k.at(0x20).text, "HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24, gsb0");
  EXPECT_EQ(k.at(0x30).opcode, "HGMMA");  // predicated
  EXPECT_EQ(l.at("_Z5otherv").at(0).opcode, "EXIT");
}

TEST(SassListing, TensorFlopsPerWarpExecution) {
  const SassListing l = parse_sass_functions(kListing);
  const auto& k = l.at("_Z6kernelPf");
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution(k.at(0x20)), 2.0 * 64 * 256 * 16 / 4);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution(k.at(0x30)), 2.0 * 64 * 128 * 16 / 4);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution(k.at(0x40)), 2.0 * 16 * 8 * 16);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution(k.at(0x10)), 0);
  EXPECT_TRUE(is_warpgroup_mma(k.at(0x20)));
  EXPECT_FALSE(is_warpgroup_mma(k.at(0x40)));
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"HMMA", "HMMA.1688.F32.TF32 R0, R2, R4, R0"}), 2.0 * 16 * 8 * 8);
  // Issue 45: every older MMA kind is priced (the SASS ptxas wrote for the counter probe's kernels).
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"HMMA", "HMMA.SP.16832.F32.BF16 R12, R4, R8, R12, R3, 0x0"}),
                   2.0 * 16 * 8 * 32);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"IMMA", "IMMA.16832.S8.S8 R8, R4.ROW, R2.COL, R8"}),
                   2.0 * 16 * 8 * 32);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"DMMA", "DMMA.8x8x4 R4, R2, R8, R4"}), 2.0 * 8 * 8 * 4);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"BMMA", "BMMA.168256.AND.POPC R8, R4.ROW, R2.COL, R8"}),
                   2.0 * 16 * 8 * 256);
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"IMMA", "IMMA.SOMETHING R8, R4, R2, R8"}), 8192)
      << "a shape this code cannot read counts the most";
  EXPECT_DOUBLE_EQ(tensor_flops_per_warp_execution({"HFMA2", "HFMA2.MMA R4, -RZ, RZ, 0, 0"}), 0)
      << "a half FMA on the tensor pipe is SIMT math, priced by other_math_flops_per_warp";
}

TEST(TargetCounts, CountsAreReadAsOpcodesFamiliesAndTheTensorShare) {
  const SassListing l = parse_sass_functions(kListing);
  // A 128x256x64 GEMM tile on one warpgroup: 4 k-steps of m64n256k16 per 64 rows, so the
  // HGMMA at 0x20 executes 2 (row halves) x 4 (k) x 4 warps = 32 times.
  const double flops = 2.0 * 128 * 256 * 64;
  const json ev = {
      {"flops", flops},
      {"check_passed", true},
      {"functions", json::array({{{"function", "_Z6kernelPf"},
                                  {"pcs", json::array({json::array({0x0, 4}), json::array({0x10, 1}),
                                                       json::array({0x20, 32}), json::array({0x70, 9})})}},
                                 {{"function", "_Z7unknownv"}, {"pcs", json::array({json::array({0, 5})})}}})}};
  const ExecutedTargets t = executed_targets(ev, l, {{"*GMMA"}, {"UTMALDG", "UTMASTG"}});
  EXPECT_EQ(t.opcodes.at("HGMMA"), 32);
  EXPECT_EQ(t.opcodes.at("UTMALDG"), 1);
  EXPECT_EQ(t.opcodes.at("LDC"), 4);
  EXPECT_DOUBLE_EQ(t.warpgroup_mma_flops, flops);
  EXPECT_EQ(t.unmatched, 9 + 5);  // an offset the listing lacks, and a kernel it lacks
  EXPECT_TRUE(groups_satisfied(t.opcodes, {{"*GMMA"}, {"UTMALDG", "UTMASTG"}}));
  EXPECT_TRUE(t.check_passed);
}

// Whether the counted calls prove that no target ran (then the timed worker takes no counted sample).
TEST(TargetCounts, NoTargetIsProvedOnlyByCountsTheListingExplains) {
  const SassListing l = parse_sass_functions(kListing);
  const std::vector<std::vector<std::string>> groups{{"*GMMA"}, {"UTMALDG", "UTMASTG"}};
  auto event = [](json pcs, const char* fn = "_Z6kernelPf") {
    return json{{"flops", 1e6}, {"check_passed", true}, {"functions", json::array({{{"function", fn}, {"pcs", pcs}}})}};
  };
  const json simt = event(json::array({json::array({0x0, 4}), json::array({0x40, 8}), json::array({0x50, 4})}));
  EXPECT_TRUE(counted_calls_show_no_target({simt, simt}, l, groups)) << "SIMT and HMMA only, on every shape";
  // One target group on one shape is enough to keep the counted timed sample: the tensor share
  // and the other shapes' credit could still differ when timed.
  EXPECT_FALSE(counted_calls_show_no_target({simt, event(json::array({json::array({0x10, 1})}))}, l, groups));
  EXPECT_FALSE(counted_calls_show_no_target({simt, event(json::array({json::array({0x30, 4})}))}, l, groups));
  // What the listing cannot explain might have been anything.
  EXPECT_FALSE(counted_calls_show_no_target({event(json::array({json::array({0x70, 1})}))}, l, groups));
  EXPECT_FALSE(counted_calls_show_no_target({event(json::array({json::array({0x0, 1})}), "_Z7unknownv")}, l, groups));
  EXPECT_FALSE(counted_calls_show_no_target({}, l, groups)) << "no counted call proves nothing";
  EXPECT_FALSE(counted_calls_show_no_target({simt}, {}, groups)) << "nor counts without a listing";
}

// Whether the counted calls can be left out: only when the SASS holds nothing they could find.
TEST(TargetCounts, CallsGoUncountedOnlyWhenTheSassHoldsNoTargetAndNoTensorInstruction) {
  const std::vector<std::vector<std::string>> groups{{"*GMMA"}, {"UTMALDG", "UTMASTG"}};
  auto listing = [](const char* body) {
    return parse_sass_functions(std::string("\tcode for sm_90a\n\t\tFunction : _Z5naivePf\n") + body);
  };
  const SassListing simt = listing(
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   FFMA R2, R3, R4, R2 ;\n"
      "        /*0020*/                   EXIT ;\n");
  ASSERT_EQ(simt.at("_Z5naivePf").size(), 3u);
  const std::string why = why_no_counted_calls(simt, groups);
  EXPECT_NE(why.find("holds no target and no tensor-core instruction"), std::string::npos) << why;
  EXPECT_NE(why.find("1 kernels"), std::string::npos) << why;
  // Any target group, or any tensor instruction (its share is still measured), keeps them.
  EXPECT_EQ(why_no_counted_calls(parse_sass_functions(kListing), groups), "") << "HGMMA and TMA";
  EXPECT_EQ(why_no_counted_calls(listing("        /*0000*/                   UTMALDG.2D [UR8], [UR4] ;\n"
                                         "        /*0010*/                   EXIT ;\n"),
                                 groups),
            "")
      << "one target group of two";
  EXPECT_EQ(why_no_counted_calls(listing("        /*0000*/                   HMMA.16816.F32.BF16 R4, R8, R12, R4 ;\n"),
                                 groups),
            "")
      << "an older tensor instruction";
  EXPECT_EQ(
      why_no_counted_calls(listing("        /*0000*/                   IMMA.16832.S8.S8 R4, R8, R12, R4 ;\n"), groups),
      "")
      << "a tensor instruction whose FLOPs the listing does not price";
  EXPECT_EQ(
      why_no_counted_calls(listing("        /*0000*/                   UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR8] ;\n"),
                           {{"UTC*MMA"}}),
      "")
      << "Blackwell's tensor instructions";
  // No listing, or one with no instruction, proves nothing.
  EXPECT_EQ(why_no_counted_calls({}, groups), "");
  EXPECT_EQ(why_no_counted_calls(SassListing{{"_Z1kv", {}}}, groups), "");
}

// The checked calls' bounds (problems/problem_spec.h): `tensor` and `tma` minimums, the other
// math at most the default 10% of the FLOPs.
ptxbench::TargetWork work(double tensor, double tma) {
  ptxbench::TargetWork k;
  k.tensor_flop_share = tensor;
  k.tma_byte_share = tma;
  return k;
}

// Issue 30: the TMA bytes are a lower bound (each copy credited with its kernel's smallest known
// box), and the strict flag needs both shares; a token wgmma and TMA copy pass only the loose one.
TEST(TargetCounts, TmaBytesUseTheKernelsSmallestKnownBoxAndTheWorkNeedsBothShares) {
  const SassListing l = parse_sass_functions(kListing);
  const double flops = 2.0 * 128 * 256 * 64;
  auto event = [&](long long copies, long long mmas, json maps) {
    return json{
        {"flops", flops},
        {"check_passed", true},
        {"tensor_maps", std::move(maps)},
        {"functions", json::array({{{"function", "_Z6kernelPf"},
                                    {"pcs", json::array({json::array({0x10, copies}), json::array({0x20, mmas})})}}})}};
  };
  const std::vector<std::vector<std::string>> groups{{"*GMMA"}, {"UTMALDG", "UTMASTG", "UTMAREDG"}};
  const json box16k = {{"_Z6kernelPf", {{"min_box_bytes", 16384}, {"maps", 2}}}};
  const double operands = 2.0 * (128 * 64 + 256 * 64);  // 49152 bytes

  // Honest: every FLOP on HGMMA, 8 copies of 16 KiB = 2.67x the operand bytes.
  const ExecutedTargets honest = executed_targets(event(8, 32, box16k), l, groups);
  EXPECT_EQ(honest.tma_copies, 8);
  EXPECT_DOUBLE_EQ(honest.tma_bytes, 8 * 16384.0);
  TargetWorkCheck w = check_target_work(honest, operands, groups, work(0.5, 0.5));
  EXPECT_TRUE(w.seen);
  EXPECT_TRUE(w.does_the_work) << w.shortfall;
  EXPECT_DOUBLE_EQ(w.tensor_flop_share, 1.0);
  EXPECT_NEAR(w.tma_byte_share, 8 * 16384.0 / operands, 1e-12);

  // Token: one wgmma (1/32 of the FLOPs) and one copy: seen, but not the work.
  w = check_target_work(executed_targets(event(1, 1, box16k), l, groups), operands, groups, work(0.5, 0.5));
  EXPECT_TRUE(w.seen);
  EXPECT_FALSE(w.does_the_work);
  EXPECT_NE(w.shortfall.find("FLOPs"), std::string::npos) << w.shortfall;

  // All the math on wgmma, but the copies' kernel was given no encoded map: credited nothing.
  const ExecutedTargets unsized = executed_targets(event(8, 32, json::object()), l, groups);
  EXPECT_EQ(unsized.tma_copies_unsized, 8);
  EXPECT_DOUBLE_EQ(unsized.tma_bytes, 0);
  w = check_target_work(unsized, operands, groups, work(0.5, 0.5));
  EXPECT_FALSE(w.does_the_work);
  EXPECT_NE(w.shortfall.find("TMA copies moved"), std::string::npos) << w.shortfall;
  EXPECT_NE(w.shortfall.find("no encoded tensor map"), std::string::npos) << w.shortfall;

  // Nothing required (a problem without [work]): the strict flag is the loose one.
  EXPECT_TRUE(check_target_work(unsized, operands, groups, work(0, 0)).does_the_work);
  // No target at all: neither.
  w = check_target_work(executed_targets(event(0, 0, box16k), l, groups), operands, groups, work(0.5, 0.5));
  EXPECT_FALSE(w.seen);
  EXPECT_FALSE(w.does_the_work);
}

// The record's flags and shares over every counted shape: a shape that falls short makes the strict
// flag false while the loose one stays, and the shares are summed over the shapes.
TEST(TargetCounts, TheSummaryOverShapesGivesBothFlagsAndTheShares) {
  const SassListing l = parse_sass_functions(kListing);
  const double flops = 2.0 * 128 * 256 * 64;
  auto event = [&](int m, long long copies, long long mmas) {
    return json{
        {"flops", flops},
        {"check_passed", true},
        {"shape", {{"M", m}}},
        {"when", "checked call"},
        {"tensor_maps", {{"_Z6kernelPf", {{"min_box_bytes", 16384}, {"maps", 2}}}}},
        {"functions", json::array({{{"function", "_Z6kernelPf"},
                                    {"pcs", json::array({json::array({0x10, copies}), json::array({0x20, mmas})})}}})}};
  };
  const std::vector<std::vector<std::string>> groups{{"*GMMA"}, {"UTMALDG", "UTMASTG", "UTMAREDG"}};
  auto operands = [](const json&) { return 49152.0; };
  auto name = [](const json& shape) { return "M=" + std::to_string(shape.at("M").get<int>()); };
  TargetWorkSummary s =
      summarize_target_work({event(1, 8, 32), event(2, 8, 32)}, l, groups, work(0.5, 0.5), operands, name);
  EXPECT_TRUE(s.seen);
  EXPECT_TRUE(s.does_the_work) << s.shortfall;
  ASSERT_TRUE(s.tensor_flop_share && s.tma_byte_share);
  EXPECT_DOUBLE_EQ(*s.tensor_flop_share, 1.0);
  EXPECT_DOUBLE_EQ(*s.tma_byte_share, 8 * 16384.0 / 49152.0);
  EXPECT_EQ(s.shapes.size(), 2u);
  EXPECT_EQ(s.executed.at("HGMMA"), 64);

  s = summarize_target_work({event(1, 8, 32), event(2, 1, 1)}, l, groups, work(0.5, 0.5), operands, name);
  EXPECT_TRUE(s.seen);
  EXPECT_FALSE(s.does_the_work);
  EXPECT_NE(s.shortfall.find("on M=2"), std::string::npos) << s.shortfall;
  EXPECT_EQ(s.shapes[1]["targets_executed"], false);
  EXPECT_EQ(s.shapes[1]["targets_seen"], true);

  s = summarize_target_work({}, l, groups, work(0.5, 0.5), operands, name);
  EXPECT_FALSE(s.seen);
  EXPECT_FALSE(s.does_the_work);
  EXPECT_FALSE(s.tensor_flop_share);
}

TEST(TargetCounts, AMalformedEventIsAClearError) {
  EXPECT_THROW(executed_targets(json{{"flops", 1}}, {}, {}), ptxbench::InputError);
}

}  // namespace

// A Triton kernel's specializations share its name, not their offsets: a count that names its cubin
// is read in that cubin's listing ("<image>/<kernel>"), never in another specialization's.
TEST(TargetCounts, ACountNamingItsCubinIsReadInThatCubinsListing) {
  const SassListing one = parse_sass_functions(kListing);
  SassListing l;
  l["_Z6kernelPf"] = {{0x20, {"NOP", "NOP"}}};  // another specialization: 0x20 is no HGMMA there
  l["spec_1.cubin/_Z6kernelPf"] = one.at("_Z6kernelPf");
  auto event = [](json function) {
    return json{
        {"flops", 2.0 * 128 * 256 * 64}, {"check_passed", true}, {"functions", json::array({std::move(function)})}};
  };
  const json pcs = json::array({json::array({0x20, 32})});
  const auto groups = std::vector<std::vector<std::string>>{{"*GMMA"}};
  const ExecutedTargets named =
      executed_targets(event({{"function", "_Z6kernelPf"}, {"image", "spec_1.cubin"}, {"pcs", pcs}}), l, groups);
  EXPECT_EQ(named.opcodes.at("HGMMA"), 32);
  EXPECT_DOUBLE_EQ(named.warpgroup_mma_flops, 32 * 2.0 * 64 * 256 * 16 / 4);
  const ExecutedTargets unnamed = executed_targets(event({{"function", "_Z6kernelPf"}, {"pcs", pcs}}), l, groups);
  EXPECT_FALSE(unnamed.opcodes.contains("HGMMA")) << "without an image the kernel's name decides the listing";
  // An image the judge has no listing of: read by the kernel's name.
  const ExecutedTargets unknown =
      executed_targets(event({{"function", "_Z6kernelPf"}, {"image", "other.cubin"}, {"pcs", pcs}}), l, groups);
  EXPECT_EQ(unknown.opcodes.at("NOP"), 32);
}

// Issue 30, wasted targets: warpgroup MMAs doing the problem's FLOPs on tiles thrown away while
// other instructions make the output. The math off the target family is bounded.
TEST(TargetCounts, MathOffTheTargetFamilyBeyondTheBoundIsNotTheWork) {
  const SassListing l = parse_sass_functions(kListing);
  const double flops = 2.0 * 128 * 256 * 64;  // 32 executions of the 64x256x16 HGMMA
  const std::vector<std::vector<std::string>> groups{{"*GMMA"}, {"UTMALDG", "UTMASTG", "UTMAREDG"}};
  const json box16k = {{"_Z6kernelPf", {{"min_box_bytes", 16384}, {"maps", 2}}}};
  auto event = [&](long long hmmas) {
    return json{{"flops", flops},
                {"check_passed", true},
                {"tensor_maps", box16k},
                {"functions", json::array({{{"function", "_Z6kernelPf"},
                                            {"pcs", json::array({json::array({0x10, 8}), json::array({0x20, 32}),
                                                                 json::array({0x40, hmmas})})}}})}};
  };
  const double operands = 2.0 * (128 * 64 + 256 * 64);
  // The same math again on mma.sync (4096 FLOPs a warp execution): the HGMMAs' results are not the output.
  TargetWorkCheck w = check_target_work(executed_targets(event(static_cast<long long>(flops / 4096)), l, groups),
                                        operands, groups, work(0.5, 0.5));
  EXPECT_TRUE(w.seen);
  EXPECT_FALSE(w.does_the_work);
  EXPECT_NEAR(w.other_math_flop_share, 1.0, 1e-12);
  EXPECT_NE(w.shortfall.find("SIMT and older tensor instructions did up to 100%"), std::string::npos) << w.shortfall;
  // A little of it (an epilogue's worth) is allowed.
  w = check_target_work(executed_targets(event(static_cast<long long>(flops / 4096 / 20)), l, groups), operands, groups,
                        work(0.5, 0.5));
  EXPECT_TRUE(w.does_the_work) << w.shortfall;
  EXPECT_NEAR(w.other_math_flop_share, 0.05, 0.01);
  EXPECT_EQ(other_math_flops_per_warp("FFMA"), 64);
  EXPECT_EQ(other_math_flops_per_warp("HFMA2"), 128);
  EXPECT_EQ(other_math_flops_per_warp("FADD"), 32);
  EXPECT_EQ(other_math_flops_per_warp("IMAD"), 0);
  EXPECT_EQ(other_math_flops_per_warp("HGMMA"), 0);
}

// The terminal summary of one evaluation, and kernel names made readable for it.
#include <gtest/gtest.h>

#include "report/kernel_name.h"
#include "report/summary.h"

using namespace ptxbench;

TEST(KernelName, DemanglesDropsParametersAndKeepsPlainNames) {
  EXPECT_EQ(report::readable_kernel_name(
                "_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKvPvjjjjjjjjjjPKfS6_S6_PfS3_S4_S4_bb"),
            "cudnn::fusion::convert_dq_to_16bits<true>");
  EXPECT_EQ(report::readable_kernel_name("_Z10naive_fillPfi"), "naive_fill");
  const std::string cudnn =
      "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x4x1_cga1x1x1_kernel0_0";
  EXPECT_EQ(report::readable_kernel_name(cudnn), cudnn);
  EXPECT_EQ(report::readable_kernel_name("_Znot_really_mangled"), "_Znot_really_mangled");
  const std::string cut = report::readable_kernel_name(std::string(200, 'k'), 50);
  EXPECT_EQ(cut.size(), 50u);
  EXPECT_EQ(cut.substr(47), "...");
}

TEST(Summary, NamesTheBaselineAndTheKernelsItLaunchedPerShape) {
  EvaluationRecord r;
  r.problem = "mha_bwd";
  r.verdict = Verdict::correct;
  StageResult timing{"timing", StageStatus::ok, 1.0, "every timed output checked"};
  timing.detail["baseline"] = {
      {"library", "cuDNN"},
      {"version", "frontend 1.16.0, library 91400"},
      {"kernels",
       {{"bwd B=4 H=16 S=4096 D=128",
         {"_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKvPvjjjjjjjjjjPKfS6_S6_PfS3_S4_S4_bb",
          "sdpa_flash_bprop"}}}}};
  r.add_stage(timing);
  const std::string text = report::format_summary(r);
  EXPECT_NE(text.find("baseline: cuDNN (frontend 1.16.0, library 91400)"), std::string::npos) << text;
  EXPECT_NE(text.find("bwd B=4 H=16 S=4096 D=128: cudnn::fusion::convert_dq_to_16bits<true> + sdpa_flash_bprop"),
            std::string::npos)
      << text;
}

TEST(Summary, NoBaselineBlockWithoutATimingStage) {
  EvaluationRecord r;
  r.problem = "gemm";
  EXPECT_EQ(report::format_summary(r).find("baseline:"), std::string::npos);
}

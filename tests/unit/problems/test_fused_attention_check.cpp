// The check that cuDNN's SDPA baseline is its fused flash-attention engine, on the kernel lists
// cuDNN 9.14 launched on the H200 and on what a decomposed plan would launch.
#include <gtest/gtest.h>

#include "common/attention/fused_attention_check.h"

using namespace ptxbench::attention;

namespace {

const std::string kFprop =
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0";
const std::string kBprop =
    "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x4x1_cga1x1x1_kernel0_0";
const std::string kDotDoO =
    "_ZN5cudnn6fusion28compute_dot_do_o_specializedILb1ELi128EEEvPKvS3_PvS4_jjjjjjjjjjjjjjjjjfS3_S3_S3_S3_S3_bS3_S4_S3_"
    "iiiiiiiii";
const std::string kReduceHead = "_ZN5cudnn6fusion16fmha_reduce_headILb1EEEvPKvPvjjjjjjjjjjjPKfS6_S6_PfS4_bS4_b";
const std::string kConvertDq = "_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKvPvjjjjjjjjjjPKfS6_S6_PfS3_S4_S4_bb";

}  // namespace

TEST(FusedAttentionCheck, AcceptsCudnnsFusedForwardAndBackwardPlans) {
  EXPECT_EQ(why_not_fused_attention({kFprop}), "");
  EXPECT_EQ(why_not_fused_attention({kDotDoO, kBprop, kConvertDq}), "");
  EXPECT_EQ(attention_kernel({kDotDoO, kBprop, kConvertDq}), kBprop);
}

TEST(FusedAttentionCheck, RejectsADecomposedPlan) {
  const std::vector<std::string> decomposed{
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", "cudnn::softmax_fw_kernel",
      kFprop};
  EXPECT_NE(why_not_fused_attention(decomposed).find("GEMM or softmax"), std::string::npos);
  EXPECT_NE(why_not_fused_attention({"cudnn::ops::softmax_fw_kernel<float>"}), "");
}

TEST(FusedAttentionCheck, RejectsNoAttentionKernelOrTooManyKernels) {
  EXPECT_NE(why_not_fused_attention({}).find("no kernel"), std::string::npos);
  EXPECT_NE(why_not_fused_attention({kDotDoO, kConvertDq}).find("attention"), std::string::npos);
  EXPECT_EQ(attention_kernel({kDotDoO}), "");
  const std::vector<std::string> many(kMaxFusedKernels + 1, kBprop);
  EXPECT_NE(why_not_fused_attention(many).find("kernels"), std::string::npos);
}

// cuDNN 9.14's grouped backward (GQA, B2 H32 Hkv8 S4096 D128 causal on the H200) reduces dK and dV
// over each group's query heads in two extra kernels: fused, but only where K/V are grouped.
TEST(FusedAttentionCheck, HeadReductionsAreAllowedOnlyForGroupedKv) {
  const std::vector<std::string> gqa{kDotDoO, kBprop, kConvertDq, kReduceHead, kReduceHead};
  EXPECT_EQ(why_not_fused_attention(gqa, /*grouped=*/true), "");
  EXPECT_EQ(attention_kernel(gqa), kBprop);
  EXPECT_NE(why_not_fused_attention(gqa, /*grouped=*/false).find("head-reduction"), std::string::npos);
  auto three = gqa;
  three.push_back(kReduceHead);
  EXPECT_NE(why_not_fused_attention(three, true).find("at most 2"), std::string::npos);
  EXPECT_NE(why_not_fused_attention({kReduceHead, kReduceHead}, true).find("attention"), std::string::npos);
  std::vector<std::string> many(kMaxFusedKernels + 1, kBprop);
  many.push_back(kReduceHead);
  EXPECT_NE(why_not_fused_attention(many, true).find("besides head reductions"), std::string::npos);
}

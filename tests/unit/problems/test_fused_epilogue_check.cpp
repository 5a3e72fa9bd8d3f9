// The check that cuBLASLt's GELU_BIAS baseline is a fused plan: the GEMM kernel applies the epilogue
// itself (one kernel), with no split-K reduction or separate elementwise kernel.
#include <gtest/gtest.h>

#include "common/gemm/fused_epilogue_check.h"

using namespace ptxbench::gemm;

namespace {

// Kernel names of the kinds cuBLASLt launches on Hopper (cuBLAS 12/13 "nvjet" and xmma kernels).
const std::string kNvjetGelu = "nvjet_tst_128x256_64x4_2x1_v_bz_coopB_bias_gelu_TNN";
const std::string kXmmaGelu =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_"
    "cublas_gelu_bias";
const std::string kPlainGemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_"
    "cublas";

}  // namespace

TEST(FusedEpilogueCheck, AcceptsOneGemmKernelThatCarriesTheEpilogue) {
  EXPECT_EQ(why_not_fused_epilogue({kNvjetGelu}), "");
  EXPECT_EQ(why_not_fused_epilogue({kXmmaGelu}), "");
  EXPECT_EQ(why_not_fused_epilogue({kPlainGemm}), "") << "the name need not spell the epilogue";
}

TEST(FusedEpilogueCheck, RejectsSplitKReductionsSeparateEpiloguesAndSeveralKernels) {
  const std::string split_k =
      why_not_fused_epilogue({kPlainGemm, "void splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>(...)"});
  EXPECT_NE(split_k.find("splitKreduce"), std::string::npos) << split_k;
  const std::string separate = why_not_fused_epilogue({kPlainGemm, "_ZN7cublasLt11gelu_kernelIfEEvPKT_PS1_i"});
  EXPECT_NE(separate.find("gelu_kernel"), std::string::npos) << separate;
  EXPECT_NE(why_not_fused_epilogue({"void at::native::elementwise_kernel<128, 4>(int)"}), "");
  const std::string two = why_not_fused_epilogue({kPlainGemm, kXmmaGelu});
  EXPECT_NE(two.find("2 kernels"), std::string::npos) << two;
  EXPECT_NE(why_not_fused_epilogue({}).find("no kernel"), std::string::npos);
}

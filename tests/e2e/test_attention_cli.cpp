// The attention problems on the CPU path: every reference and test candidate builds for sm_90a
// and passes the static checks (GPU stages skipped), and a cuDNN caller is forbidden.
#include <gtest/gtest.h>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class AttentionCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ws_ = new std::filesystem::path(fresh_workspace("attention-cli")); }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*ws_);
    delete ws_;
  }
  static std::filesystem::path* ws_;
  static CliRun eval_no_gpu(const std::string& problem, const std::vector<std::string>& files) {
    std::vector<std::string> args{"eval", "--no-gpu", "--json", "--no-store", "-p", problem};
    for (const auto& f : files) args.push_back((source_dir() / f).string());
    return run_cli(*ws_, args);
  }
  static void expect_built_and_clean(const json& r) {
    EXPECT_EQ(r["verdict"], "not_run") << r["reason"];
    EXPECT_EQ(stage_of(r, "build")["status"], "ok") << stage_of(r, "build").dump();
    EXPECT_EQ(stage_of(r, "static")["status"], "ok") << stage_of(r, "static").dump();
  }
};
std::filesystem::path* AttentionCli::ws_ = nullptr;

TEST_F(AttentionCli, ProblemsListsTheFourAttentionProblems) {
  auto r = run_cli(*ws_, {"problems"});
  EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
  for (const char* name : {"mha_fwd ", "mha_fwd_causal ", "mha_bwd ", "mha_bwd_causal "})
    EXPECT_NE(r.process.out.find(name), std::string::npos) << name << "\n" << r.process.out;
}

TEST_F(AttentionCli, ForwardNaiveCandidatesBuildForSm90a) {
  for (const char* p : {"mha_fwd", "mha_fwd_causal"}) {
    auto r = eval_no_gpu(p, {std::string("problems/") + p + "/reference/naive.cu"});
    ASSERT_FALSE(r.output.is_null()) << p << ": " << r.process.err;
    EXPECT_EQ(r.process.exit_code, 2) << p;
    expect_built_and_clean(r.output);
    EXPECT_FALSE(r.output["target_static"].get<bool>()) << p;
  }
}

TEST_F(AttentionCli, BackwardNaiveCandidatesBuildForSm90a) {
  for (const char* p : {"mha_bwd", "mha_bwd_causal"}) {
    auto r = eval_no_gpu(p, {std::string("problems/") + p + "/reference/naive.cu"});
    ASSERT_FALSE(r.output.is_null()) << p << ": " << r.process.err;
    EXPECT_EQ(r.process.exit_code, 2) << p;
    expect_built_and_clean(r.output);
  }
}

// The wgmma + TMA references: built for sm_90a, with wgmma and TMA in their SASS (HGMMA, UTMALDG;
// the backward also adds its fp32 dQ partials with TMA reduce, UTMAREDG).
TEST_F(AttentionCli, WgmmaTmaCandidatesCarryTheTargetsInSass) {
  for (const std::string p : {"mha_fwd", "mha_fwd_causal", "mha_bwd", "mha_bwd_causal"}) {
    SCOPED_TRACE(p);
    auto r = eval_no_gpu(p, {"problems/" + p + "/reference/wgmma_tma.cu"});
    ASSERT_FALSE(r.output.is_null()) << r.process.err;
    EXPECT_EQ(r.process.exit_code, 2);
    expect_built_and_clean(r.output);
    EXPECT_TRUE(r.output["target_static"].get<bool>()) << r.output["static_families"].dump();
    EXPECT_GT(r.output["static_families"].value("HGMMA", 0), 0) << r.output["static_families"].dump();
    EXPECT_GT(r.output["static_families"].value("UTMALDG", 0), 0) << r.output["static_families"].dump();
    if (p.rfind("mha_bwd", 0) == 0) {
      EXPECT_GT(r.output["static_families"].value("UTMAREDG", 0), 0);
    }
  }
}

TEST_F(AttentionCli, WrongForwardTestCandidatesBuild) {
  auto r =
      eval_no_gpu("mha_fwd", {"tests/gpu/candidates/attention_no_lse.cu", "tests/gpu/candidates/attention_only_d128.cu",
                              "tests/gpu/candidates/attention_s_multiple_of_256.cu"});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 3u) << r.process.err;
  for (const auto& rec : r.output) expect_built_and_clean(rec);
  auto causal = eval_no_gpu("mha_fwd_causal", {"tests/gpu/candidates/attention_causal_off_by_one.cu"});
  ASSERT_FALSE(causal.output.is_null()) << causal.process.err;
  expect_built_and_clean(causal.output);
}

TEST_F(AttentionCli, CudnnCallerIsForbidden) {
  auto r = eval_no_gpu("mha_fwd", {"tests/gpu/candidates/attention_calls_cudnn.cu"});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.process.exit_code, 11);
  EXPECT_EQ(r.output["verdict"], "forbidden");
  const std::string reason = r.output["reason"];
  EXPECT_NE(reason.find("cudnn"), std::string::npos) << reason;
  EXPECT_NE(reason.find("cuDNN"), std::string::npos) << reason;
}

TEST_F(AttentionCli, AForwardCandidateDoesNotSatisfyTheBackwardAbi) {
  auto r = eval_no_gpu("mha_bwd", {"problems/mha_fwd/reference/naive.cu"});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.output["verdict"], "forbidden");
  EXPECT_NE(r.output["reason"].get<std::string>().find("ptxbench_mha_bwd"), std::string::npos) << r.output["reason"];
}

}  // namespace

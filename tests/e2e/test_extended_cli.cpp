// The extended suite on the CPU path: the four new problems' reference and test candidates build
// (sm_90a; the naive ones for sm_100a too) and pass the static checks, the wgmma + TMA references
// carry their target families in SASS (QGMMA for the fp8 GEMM), calls into the new baselines'
// library APIs are forbidden; suites in `problems --suite` and `run --suite --no-gpu`, with each
// problem's split stored in the run, its export and its report.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

const std::vector<std::string> kNew{"gqa_fwd", "gqa_bwd", "gemm_fp8", "gemm_bias_gelu"};

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

class ExtendedCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ws_ = new std::filesystem::path(fresh_workspace("extended-cli")); }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*ws_);
    delete ws_;
  }
  static std::filesystem::path* ws_;
  static CliRun eval_no_gpu(const std::string& problem, const std::vector<std::string>& files,
                            const std::string& arch = "sm_90a") {
    std::vector<std::string> args{"eval", "--no-gpu", "--json", "--no-store", "-p", problem, "--arch", arch};
    for (const auto& f : files) args.push_back((source_dir() / f).string());
    return run_cli(*ws_, args);
  }
  static void expect_built_and_clean(const json& r) {
    EXPECT_EQ(r["verdict"], "not_run") << r["reason"];
    EXPECT_EQ(stage_of(r, "build")["status"], "ok") << stage_of(r, "build").dump();
    EXPECT_EQ(stage_of(r, "static")["status"], "ok") << stage_of(r, "static").dump();
  }
};
std::filesystem::path* ExtendedCli::ws_ = nullptr;

}  // namespace

TEST_F(ExtendedCli, ProblemsListsTheFourNewProblems) {
  auto r = run_cli(*ws_, {"problems"});
  EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
  for (const auto& name : kNew) EXPECT_TRUE(has(r.process.out, name + "  ")) << name << "\n" << r.process.out;
}

TEST_F(ExtendedCli, NaiveCandidatesBuildForSm90aAndSm100aWithoutTargets) {
  for (const auto& p : kNew)
    for (const std::string arch : {"sm_90a", "sm_100a"}) {
      SCOPED_TRACE(p + " " + arch);
      auto r = eval_no_gpu(p, {"problems/" + p + "/reference/naive.cu"}, arch);
      ASSERT_FALSE(r.output.is_null()) << r.process.err;
      EXPECT_EQ(r.process.exit_code, 2);
      expect_built_and_clean(r.output);
      EXPECT_FALSE(r.output["target_static"].get<bool>());
    }
}

// The wgmma + TMA references: built for sm_90a, with the problem's tensor-core family and TMA in their
// SASS. The fp8 GEMM's wgmma .e4m3 is QGMMA (HGMMA would be a bf16 up-conversion); the GQA
// backward adds its fp32 dQ partials with TMA reduce (UTMAREDG).
TEST_F(ExtendedCli, WgmmaTmaReferencesCarryTheirTargetFamiliesInSass) {
  for (const auto& p : kNew) {
    SCOPED_TRACE(p);
    auto r = eval_no_gpu(p, {"problems/" + p + "/reference/wgmma_tma.cu"});
    ASSERT_FALSE(r.output.is_null()) << r.process.err;
    expect_built_and_clean(r.output);
    const json families = r.output["static_families"];
    EXPECT_TRUE(r.output["target_static"].get<bool>()) << families.dump();
    EXPECT_GT(families.value(p == "gemm_fp8" ? "QGMMA" : "HGMMA", 0), 0) << families.dump();
    if (p == "gemm_fp8") {
      EXPECT_EQ(families.value("HGMMA", 0), 0) << families.dump();
    }
    EXPECT_GT(families.value("UTMALDG", 0), 0) << families.dump();
    if (p == "gqa_bwd") {
      EXPECT_GT(families.value("UTMAREDG", 0), 0) << families.dump();
    }
  }
}

// The bad candidates of tests/gpu (judged incorrect there) are valid, clean code.
TEST_F(ExtendedCli, TestCandidatesBuildAndPassTheStaticChecks) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"gqa_fwd", "gqa_fwd_wrong_group_mapping.cu"}, {"gqa_fwd", "gqa_fwd_power_of_two_groups.cu"},
      {"gqa_bwd", "gqa_bwd_no_group_sum.cu"},        {"gemm_fp8", "gemm_fp8_unscaled.cu"},
      {"gemm_fp8", "gemm_fp8_k_multiple_of_512.cu"}, {"gemm_bias_gelu", "gemm_bias_gelu_erf.cu"}};
  for (const auto& [problem, file] : cases) {
    SCOPED_TRACE(file);
    auto r = eval_no_gpu(problem, {"tests/gpu/candidates/" + file});
    ASSERT_FALSE(r.output.is_null()) << r.process.err;
    expect_built_and_clean(r.output);
  }
}

TEST_F(ExtendedCli, CallingTheNewBaselinesLibraryIsForbidden) {
  for (const auto& [problem, file] : std::vector<std::pair<std::string, std::string>>{
           {"gemm_fp8", "gemm_fp8_calls_cublaslt.cu"}, {"gemm_bias_gelu", "gemm_bias_gelu_calls_cublaslt.cu"}}) {
    SCOPED_TRACE(file);
    auto r = eval_no_gpu(problem, {"tests/gpu/candidates/" + file});
    ASSERT_FALSE(r.output.is_null()) << r.process.err;
    EXPECT_EQ(r.process.exit_code, 11);
    EXPECT_EQ(r.output["verdict"], "forbidden") << r.output["reason"];
    EXPECT_TRUE(has(r.output["reason"].get<std::string>(), "cuBLAS")) << r.output["reason"];
  }
}

TEST_F(ExtendedCli, ProblemsSuiteListsEachProblemWithItsSplit) {
  auto r = run_cli(*ws_, {"problems", "--suite", "8ops"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_TRUE(has(r.process.out, "suite 8ops: ")) << r.process.out;
  for (const auto& p : kNew) EXPECT_TRUE(has(r.process.out, p + "  [train]")) << p << "\n" << r.process.out;
  EXPECT_TRUE(has(r.process.out, "gemm  [held-out]")) << r.process.out;
  auto j = run_cli(*ws_, {"problems", "--suite", "4ops", "--json"});
  ASSERT_EQ(j.process.exit_code, 0) << j.process.err;
  EXPECT_EQ(j.output["held_out"], json::array({"gemm"}));
  EXPECT_EQ(j.output["splits"]["mha_bwd_causal"], "train");
  auto all = run_cli(*ws_, {"problems", "--suites", "--json"});
  ASSERT_EQ(all.process.exit_code, 0) << all.process.err;
  EXPECT_EQ(all.output.size(), 3u);
  auto bad = run_cli(*ws_, {"problems", "--suite", "9ops"});
  EXPECT_EQ(bad.process.exit_code, 1);
  EXPECT_TRUE(has(bad.process.err, "unknown suite '9ops' (known: 4ops, 8ops, paper")) << bad.process.err;
}

// `run --suite 4ops`: the four attention problems and GEMM (held out), each recorded with its split
// in the run's config, in the summary, in every exported turn, and grouped by split in the report.
TEST_F(ExtendedCli, RunSuiteRecordsTheSplitOfEveryProblemEndToEnd) {
  const auto root = fresh_workspace("extended-run");
  const auto files = root / "files";
  for (const std::string p : {"gemm", "mha_fwd", "mha_fwd_causal", "mha_bwd", "mha_bwd_causal"})
    std::filesystem::create_directories(files / p / "0");  // no 0.cu: a turn without code
  std::filesystem::copy_file(source_dir() / "problems/gemm/reference/naive.cu", files / "gemm/0/0.cu");
  const auto w = root / "ws";
  auto r = run_cli(w, {"run", "--model", "files:" + files.string(), "--suite", "4ops", "--trajectories", "1", "--turns",
                       "1", "--no-gpu", "--run-name", "suite-run", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ASSERT_TRUE(r.output.is_object()) << r.process.out;
  EXPECT_EQ(r.output["run"]["suite"], "4ops");
  ASSERT_EQ(r.output["problems"].size(), 5u);
  for (const auto& p : r.output["problems"]) {
    EXPECT_EQ(p["split"], p["problem"] == "gemm" ? "held-out" : "train") << p.dump();
    EXPECT_EQ(p["states"], p["problem"] == "gemm" ? json({{"not_run", 1}}) : json({{"no_code", 1}})) << p.dump();
  }
  auto text = run_cli(w, {"runs", "show", "suite-run"});
  EXPECT_TRUE(has(text.process.out, "suite 4ops")) << text.process.out;

  const auto jsonl = root / "suite-run.jsonl";
  auto ex = run_cli(w, {"runs", "export", "suite-run", "--jsonl", "-o", jsonl.string()});
  ASSERT_EQ(ex.process.exit_code, 0) << ex.process.err;
  std::istringstream in(read(jsonl));
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json t = json::parse(line);
    ++lines;
    EXPECT_EQ(t["split"], t["problem"] == "gemm" ? "held-out" : "train") << t["problem"];
    EXPECT_EQ(t["run"]["config"]["suite"], "4ops");
    EXPECT_EQ(t["run"]["config"]["splits"]["gemm"], "held-out");
  }
  EXPECT_EQ(lines, 5);

  // The report groups by split, from the workspace and from the export alike.
  for (const std::string& input : {w.string(), jsonl.string()}) {
    auto rep = run_cli(w, {"report", input, "--group-by", "split", "--format", "csv"});
    ASSERT_EQ(rep.process.exit_code, 0) << rep.process.err;
    EXPECT_TRUE(has(rep.process.out, "held-out")) << input << "\n" << rep.process.out;
    EXPECT_TRUE(has(rep.process.out, "train")) << input << "\n" << rep.process.out;
  }

  // The same command resumes the run; a suite and --problems together are refused.
  auto again = run_cli(w, {"run", "--model", "files:" + files.string(), "--suite", "4ops", "--trajectories", "1",
                           "--turns", "1", "--no-gpu", "--run-name", "suite-run", "--json"});
  ASSERT_EQ(again.process.exit_code, 0) << again.process.err;
  EXPECT_EQ(again.output["invocation"]["new_turns"], 0);
  auto both =
      run_cli(w, {"run", "--model", "files:" + files.string(), "--suite", "4ops", "--problems", "gemm", "--no-gpu"});
  EXPECT_EQ(both.process.exit_code, 1);
  EXPECT_TRUE(has(both.process.err, "give --problems or --suite, not both")) << both.process.err;
  auto unknown = run_cli(w, {"run", "--model", "files:" + files.string(), "--suite", "16ops", "--no-gpu"});
  EXPECT_EQ(unknown.process.exit_code, 1);
  EXPECT_TRUE(has(unknown.process.err, "unknown suite '16ops'")) << unknown.process.err;
  std::filesystem::remove_all(root);
}

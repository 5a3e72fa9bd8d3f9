// The CLI on the CPU path (CI): usage errors, missing files, static verdicts with --no-gpu, the
// store through `results`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ws_ = new std::filesystem::path(fresh_workspace("cli")); }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*ws_);
    delete ws_;
  }
  static std::filesystem::path* ws_;
  CliRun cli(const std::vector<std::string>& args) { return run_cli(*ws_, args); }
  static std::string candidate(const std::string& rel) { return (source_dir() / rel).string(); }
};
std::filesystem::path* Cli::ws_ = nullptr;

TEST_F(Cli, NoSubcommandIsAUsageError) {
  auto r = cli({});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("subcommand"), std::string::npos) << r.process.err;
}

TEST_F(Cli, UnknownFlagIsNamed) {
  auto r = cli({"eval", "--frobnicate"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("--frobnicate"), std::string::npos) << r.process.err;
}

TEST_F(Cli, MissingCandidateFileIsNamed) {
  auto r = cli({"eval", "--no-gpu", "does/not/exist.cu"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("does/not/exist.cu"), std::string::npos) << r.process.err;
}

TEST_F(Cli, UnknownProblemListsKnownOnes) {
  auto r = cli({"eval", "--no-gpu", "--problem", "fft", candidate("problems/gemm/reference/naive.cu")});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("unknown problem 'fft'"), std::string::npos) << r.process.err;
  EXPECT_NE(r.process.err.find("gemm"), std::string::npos) << r.process.err;
}

TEST_F(Cli, BadArchIsRejected) {
  auto r = cli({"eval", "--no-gpu", "--arch", "sm_75", candidate("problems/gemm/reference/naive.cu")});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("sm_75"), std::string::npos) << r.process.err;
}

TEST_F(Cli, ProblemsListsGemm) {
  auto r = cli({"problems"});
  EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_NE(r.process.out.find("gemm"), std::string::npos);
}

TEST_F(Cli, WgmmaReferenceHoldsTargetsStaticallyAndSaysGpuStagesWereSkipped) {
  auto r = cli({"eval", "--no-gpu", "--json", candidate("problems/gemm/reference/wgmma_tma.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.out << r.process.err;
  EXPECT_EQ(r.process.exit_code, 2);  // not_run
  EXPECT_EQ(r.output["verdict"], "not_run");
  EXPECT_TRUE(r.output["target_static"].get<bool>());
  EXPECT_GT(r.output["static_families"].value("HGMMA", 0), 0);
  EXPECT_GT(r.output["static_families"].value("UTMALDG", 0), 0);
  for (const char* s : {"sanitize", "correctness", "target_run", "timing"}) {
    auto st = stage_of(r.output, s);
    ASSERT_FALSE(st.is_null()) << s;
    EXPECT_EQ(st["status"], "skipped") << s;
    EXPECT_NE(st["message"].get<std::string>().find("--no-gpu"), std::string::npos) << st.dump();
  }
  EXPECT_GT(stage_of(r.output, "static")["detail"]["ptx_targets"].value("wgmma.mma_async", 0), 0);
}

TEST_F(Cli, NaiveReferenceHoldsNoTargets) {
  auto r = cli({"eval", "--no-gpu", "--json", candidate("problems/gemm/reference/naive.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.output["verdict"], "not_run");
  EXPECT_FALSE(r.output["target_static"].get<bool>());
  EXPECT_TRUE(r.output["static_families"].empty()) << r.output["static_families"].dump();
}

// A workspace given as a relative path (nvcc runs in its sandbox from another folder): the build
// used to fail with "cc1plus: opening output file relws/builds/...: No such file or directory".
TEST_F(Cli, ARelativeWorkspaceBuilds) {
  const auto ws = fresh_workspace("relative");
  const auto relative = std::filesystem::relative(ws, source_dir());
  ASSERT_TRUE(relative.is_relative()) << relative;
  auto r = run_cli(relative, {"eval", "--no-gpu", "--json", candidate("problems/gemm/reference/naive.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.output["verdict"], "not_run") << r.output["reason"];
  std::filesystem::remove_all(ws);
}

// Blackwell: compiled and inspected only (no B200 exists here); never run.
TEST_F(Cli, BlackwellCandidateHoldsTcgen05FamiliesStatically) {
  auto r = cli(
      {"eval", "--arch", "sm_100a", "--json", "--no-store", candidate("problems/gemm/reference/tcgen05_blackwell.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.output["verdict"], "not_run");
  EXPECT_EQ(r.output["arch"], "sm_100a");
  EXPECT_TRUE(r.output["target_static"].get<bool>()) << r.output["static_families"].dump();
  bool utc = false;
  for (const auto& [op, n] : r.output["static_families"].items()) utc = utc || op.rfind("UTC", 0) == 0;
  EXPECT_TRUE(utc) << r.output["static_families"].dump();
  EXPECT_GT(r.output["static_families"].value("LDTM", 0), 0);
  EXPECT_EQ(stage_of(r.output, "correctness")["status"], "skipped");
}

TEST_F(Cli, CublasCallerIsForbidden) {
  auto r = cli({"eval", "--no-gpu", "--json", candidate("tests/gpu/candidates/calls_cublas.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.process.exit_code, 11);
  EXPECT_EQ(r.output["verdict"], "forbidden");
  EXPECT_NE(r.output["reason"].get<std::string>().find("cublas"), std::string::npos) << r.output["reason"];
}

TEST_F(Cli, CompileErrorNamesFileAndLine) {
  auto dir = fresh_workspace("bad-source");
  auto file = dir / "broken.cu";
  std::ofstream(file) << "#include \"interface.h\"\n"
                         "extern \"C\" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B,\n"
                         "    __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {\n"
                         "  return not_declared_anywhere;\n"
                         "}\n";
  auto r = cli({"eval", "--json", file.string()});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.process.exit_code, 10);
  EXPECT_EQ(r.output["verdict"], "compile_error");
  auto build = stage_of(r.output, "build");
  bool found = false;
  for (const auto& d : build["detail"]["diagnostics"])
    if (d["line"] == 4 && d["message"].get<std::string>().find("not_declared_anywhere") != std::string::npos)
      found = true;
  EXPECT_TRUE(found) << build.dump(2);
  std::filesystem::remove_all(dir);
}

TEST_F(Cli, WithoutAGpuTheGpuStagesAreSkippedWithTheReason) {
  // On a GPU machine this would run the stages; the CPU path must say plainly why they did not.
  auto info = run_process({(bin_dir() / "ptxbench-worker").string(), "--info"});
  if (info.ok()) GTEST_SKIP() << "a GPU is present: this test covers the CPU path";
  auto r = cli({"eval", "--json", "--no-store", candidate("problems/gemm/reference/naive.cu")});
  ASSERT_FALSE(r.output.is_null()) << r.process.err;
  EXPECT_EQ(r.output["verdict"], "not_run");
  auto st = stage_of(r.output, "correctness");
  EXPECT_EQ(st["status"], "skipped");
  EXPECT_NE(st["message"].get<std::string>().find("no usable GPU"), std::string::npos) << st.dump();
}

TEST_F(Cli, ResultsListWhatEvalStored) {
  auto r = cli({"eval", "--no-gpu", "--json", candidate("problems/gemm/reference/naive.cu")});
  ASSERT_FALSE(r.output.is_null());
  long long id = r.output["id"];
  auto list = cli({"results", "--json", "--problem", "gemm"});
  ASSERT_FALSE(list.output.is_null()) << list.process.err;
  // The list is the result schema's "evaluations" table (src/report/results_report.h).
  ASSERT_EQ(list.output["format"], "ptxbench.results/1") << list.process.out;
  bool found = false;
  for (const auto& row : list.output["tables"][0]["rows"]) {
    if (row["id"] != id) continue;
    found = true;
    EXPECT_EQ(row["arch"], "sm_90a");
    EXPECT_EQ(row["harness_version"], "0.1.0");
    EXPECT_EQ(row["harness_commit"].get<std::string>().size(), 40u) << row.dump();
  }
  EXPECT_TRUE(found);
  auto one = cli({"results", "--id", std::to_string(id), "--json"});
  ASSERT_FALSE(one.output.is_null());
  EXPECT_EQ(one.output["candidate"]["sha256"], r.output["candidate"]["sha256"]);
  EXPECT_EQ(cli({"results", "--id", "999999"}).process.exit_code, 1);
}

}  // namespace

// Flags that cannot both apply are refused, never one of them silently dropped.
TEST_F(Cli, ConflictingEngineFlagsAreRefused) {
  auto local_queue =
      cli({"fixit", "build", "--local", "--queue", "redis://127.0.0.1:1/", "--runs", "x", "--recipe", "s0"});
  EXPECT_EQ(local_queue.process.exit_code, 1);
  EXPECT_NE(local_queue.process.err.find("--local"), std::string::npos) << local_queue.process.err;
  auto devices = cli({"run", "--model", "files:" + source_dir().string(), "--service", "--device", "2", "--devices",
                      "1", "--problems", "gemm"});
  EXPECT_EQ(devices.process.exit_code, 1);
  EXPECT_NE(devices.process.err.find("--devices disagree"), std::string::npos) << devices.process.err;
}

// Issue 48: `ptxbench doctor` says what this machine can do, and how to fix each missing piece. On a
// machine without a GPU (CI) it says so with the fix and exits 2; on a GPU host it names the GPU and
// exits 0. Either way: every check has a status, and every one that is not ok has its fix.
TEST_F(Cli, DoctorSaysWhatThisMachineCanDoAndHowToFixTheRest) {
  // A relative workspace, as the default (.ptxbench) is: the worker starts in a folder of its own.
  const auto ws = fresh_workspace("doctor");
  const auto relative = std::filesystem::relative(ws, source_dir());
  ASSERT_TRUE(relative.is_relative()) << relative;
  auto r = run_cli(relative, {"doctor", "--json"});
  ASSERT_TRUE(r.output.is_object()) << r.process.describe() << "\n" << r.process.out << r.process.err;
  const json& d = r.output;
  const bool gpu = d.at("gpu_stages").get<bool>();
  EXPECT_EQ(r.process.exit_code, gpu ? 0 : 2) << d.dump(2);
  std::set<std::string> names;
  for (const auto& c : d.at("checks")) {
    const std::string status = c.at("status");
    EXPECT_TRUE(status == "ok" || status == "missing" || status == "limited") << c.dump();
    EXPECT_EQ(c.at("fix").get<std::string>().empty(), status == "ok") << c.dump();
    EXPECT_FALSE(c.at("found").get<std::string>().empty()) << c.dump();
    names.insert(c.at("name").get<std::string>().substr(0, c.at("name").get<std::string>().find(' ')));
  }
  for (const char* n : {"harness", "nvcc", "cuobjdump", "GPU", "CUPTI's", "compute-sanitizer", "ncu", "cuDNN", "NVML",
                        "Triton", "bubblewrap", "Landlock", "seccomp"})
    EXPECT_TRUE(names.count(n)) << n << " missing from " << d.dump(2);
  if (!gpu) {
    const auto& checks = d.at("checks");
    const auto g = std::find_if(checks.begin(), checks.end(),
                                [](const json& c) { return c.at("name").get<std::string>().starts_with("GPU"); });
    ASSERT_NE(g, checks.end());
    EXPECT_EQ(g->at("status"), "missing");
    // The worker beside ptxbench starts and says why there is no GPU: "could not start" would mean
    // doctor looked for a worker elsewhere (the bug the H100 showed: doctor said no GPU there).
    EXPECT_EQ(g->at("found").get<std::string>().find("could not start"), std::string::npos) << g->dump();
    EXPECT_NE(d.at("summary").get<std::string>().find("no GPU stage can run"), std::string::npos) << d.dump(2);
  }
  // The table for people says the same.
  auto text = run_cli(relative, {"doctor"});
  EXPECT_NE(text.process.out.find("harness"), std::string::npos) << text.process.out;
  EXPECT_NE(text.process.out.find(gpu ? "the GPU stages run on" : "no GPU stage can run"), std::string::npos);
  std::filesystem::remove_all(ws);
}

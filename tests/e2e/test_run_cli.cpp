// `ptxbench run` end to end on the CPU path (real nvcc, static stages; --no-gpu where the verdict
// must not depend on the host): files: and replay: clients, kill -9 and resume, sm_100a, --validate,
// bad flags and configs, the shipped demo.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

// gemm/0: a compile error, the naive kernel, no file (no_code); gemm/1: a cuBLAS call (forbidden),
// the naive kernel again (its judgment reused), the naive kernel with a comment (judged anew).
std::filesystem::path make_files_dir(const std::filesystem::path& root) {
  const std::string naive = read(source_dir() / "problems/gemm/reference/naive.cu");
  write(root / "gemm/0/0.cu", naive + "\nint broken = ;\n");
  write(root / "gemm/0/1.cu", naive);
  std::filesystem::create_directories(root / "gemm/0");
  write(root / "gemm/1/0.cu", read(source_dir() / "tests/gpu/candidates/calls_cublas.cu"));
  write(root / "gemm/1/1.cu", naive);
  write(root / "gemm/1/2.cu", naive + "// second try\n");
  return root;
}

// (trajectory, turn) -> state, from an export.
std::map<std::pair<int, int>, std::string> states_of_export(const std::string& jsonl, int* uncounted = nullptr) {
  std::map<std::pair<int, int>, std::string> out;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json j = json::parse(line);
    EXPECT_TRUE(
        out.emplace(std::make_pair(j["trajectory"].get<int>(), j["turn"].get<int>()), j["state"].get<std::string>())
            .second)
        << "a turn exported twice";
    if (uncounted) *uncounted += j["uncounted_model_calls"].get<int>();
  }
  return out;
}

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_workspace(std::string("run-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    files_ = make_files_dir(root_ / "files");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path ws(const std::string& name) { return root_ / name; }
  std::string export_of(const std::filesystem::path& w, const std::string& run) {
    const auto file = root_ / (run + ".jsonl");
    auto r = run_cli(w, {"runs", "export", run, "--jsonl", "-o", file.string()});
    EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
    return read(file);
  }
  std::filesystem::path root_, files_;
};

}  // namespace

TEST_F(RunCli, FilesRunRecordsEveryTurnAndAReplayReproducesItsVerdicts) {
  auto r = run_cli(ws("a"), {"run", "--model", "files:" + files_.string(), "--problems", "gemm", "--trajectories", "2",
                             "--turns", "3", "--no-gpu", "--run-name", "files-run", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ASSERT_TRUE(r.output.is_object()) << r.process.out;
  const json states = r.output["problems"][0]["states"];
  EXPECT_EQ(states, json({{"compile_error", 1}, {"forbidden", 1}, {"no_code", 1}, {"not_run", 3}})) << states.dump();
  EXPECT_EQ(r.output["run"]["status"], "complete");
  EXPECT_TRUE(has(r.process.err, "trajectories 2/2, turns 6/6")) << r.process.err;

  auto show = run_cli(ws("a"), {"runs", "show", "files-run", "gemm/1", "--json"});
  ASSERT_EQ(show.process.exit_code, 0) << show.process.err;
  const json& t = show.output["turns"];
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0]["state"], "forbidden");
  // gemm/0/1 and gemm/1/1 are the same naive kernel: whichever trajectory gets there second (they
  // run concurrently) reuses the other's evaluation instead of judging it again.
  auto show_0 = run_cli(ws("a"), {"runs", "show", "files-run", "gemm/0", "--json"});
  ASSERT_EQ(show_0.process.exit_code, 0) << show_0.process.err;
  const json& t0 = show_0.output["turns"];
  ASSERT_EQ(t0.size(), 3u);
  EXPECT_NE(t0[1]["reused_evaluation"].get<bool>(), t[1]["reused_evaluation"].get<bool>()) << t0.dump() << t.dump();
  EXPECT_EQ(t0[1]["evaluation_id"], t[1]["evaluation_id"]) << "the naive kernel is judged once";
  EXPECT_EQ(t[2]["reused_evaluation"], false);
  EXPECT_TRUE(has(t[0]["feedback"].get<std::string>(), "cuBLAS")) << t[0]["feedback"];
  auto show0 = run_cli(ws("a"), {"runs", "show", "files-run", "gemm/0", "--feedback"});
  EXPECT_TRUE(has(show0.process.out, "candidate.cu:")) << show0.process.out;

  const std::string jsonl = export_of(ws("a"), "files-run");
  const auto original = states_of_export(jsonl);
  ASSERT_EQ(original.size(), 6u);

  // Replay from the JSONL export in another workspace (reading a workspace database instead is
  // covered by the RunStore unit test).
  auto rr =
      run_cli(ws("replay"), {"run", "--model", "replay:" + (root_ / "files-run.jsonl").string(), "--problems", "gemm",
                             "--trajectories", "2", "--turns", "3", "--no-gpu", "--run-name", "replayed"});
  ASSERT_EQ(rr.process.exit_code, 0) << rr.process.err;
  EXPECT_EQ(states_of_export(export_of(ws("replay"), "replayed")), original);

  auto list = run_cli(ws("a"), {"runs", "list", "--json"});
  ASSERT_EQ(list.process.exit_code, 0);
  ASSERT_EQ(list.output.size(), 1u);
  EXPECT_EQ(list.output[0]["turns_done"], 6);
}

TEST_F(RunCli, KilledAtRandomPointsAndResumedEndsWithTheTurnsOfACleanRun) {
  const std::vector<std::string> args{"run",
                                      "--model",
                                      "files:" + files_.string(),
                                      "--model-arg",
                                      "latency_ms=250",
                                      "--problems",
                                      "gemm",
                                      "--trajectories",
                                      "2",
                                      "--turns",
                                      "3",
                                      "--no-gpu",
                                      "--run-name",
                                      "k",
                                      "--compile-jobs",
                                      "2"};
  auto clean = run_cli(ws("clean"), args);
  ASSERT_EQ(clean.process.exit_code, 0) << clean.process.err;
  int uncounted = 0;
  const auto expected = states_of_export(export_of(ws("clean"), "k"), &uncounted);
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(uncounted, 0);

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> kill_after_ms(300, 2500);
  // Each attempt runs under a random wall-clock limit; at the limit the process runner SIGKILLs
  // the whole process group (ptxbench, nvcc, the worker): kill -9 at an arbitrary moment.
  int kills = 0, code = -1;
  std::vector<std::string> argv{(bin_dir() / "ptxbench").string(), "--workspace", ws("killed").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  for (int attempt = 0; attempt < 12 && code != 0; ++attempt) {
    ProcessOptions o;
    o.working_dir = source_dir().string();
    o.timeout = std::chrono::milliseconds(kill_after_ms(rng));
    const ProcessResult p = run_process(argv, o);
    if (p.timed_out) ++kills;
    else code = p.exit_code;
    ASSERT_TRUE(p.timed_out || p.exit_code == 0) << "seed " << seed << ": " << p.err;
  }
  if (code != 0) {  // finish without a kill
    ProcessOptions o;
    o.working_dir = source_dir().string();
    o.timeout = std::chrono::seconds(600);
    const ProcessResult p = run_process(argv, o);
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  EXPECT_GE(kills, 1) << "seed " << seed << ": the run was never interrupted";
  uncounted = 0;
  const auto resumed = states_of_export(export_of(ws("killed"), "k"), &uncounted);
  EXPECT_EQ(resumed, expected) << "seed " << seed << ", " << kills << " kills";
  EXPECT_EQ(uncounted, 0) << "no turn's model call was repeated";
}

TEST_F(RunCli, Sm100aIsBuiltAndCheckedAndSaysNoGpuStageRan) {
  write(root_ / "bw/gemm/0/0.cu", read(source_dir() / "problems/gemm/reference/tcgen05_blackwell.cu"));
  auto r = run_cli(ws("bw"), {"run", "--model", "files:" + (root_ / "bw").string(), "--problems", "gemm", "--arch",
                              "sm_100a", "--trajectories", "1", "--turns", "1", "--run-name", "bw", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_EQ(r.output["problems"][0]["states"], json({{"not_run", 1}}));
  EXPECT_EQ(r.output["run"]["provenance"]["gpu"]["gpu_stages"], false);
  EXPECT_TRUE(has(r.process.err, "NO GPU STAGE WILL RUN")) << r.process.err;
  EXPECT_TRUE(has(r.process.err, "no GPU stage ran")) << r.process.err;
  auto show = run_cli(ws("bw"), {"runs", "show", "bw", "0", "--json"});
  const std::string feedback = show.output["turns"][0]["feedback"];
  EXPECT_TRUE(has(feedback, "No GPU stage ran")) << feedback;
  EXPECT_TRUE(has(feedback, "UTC*")) << "the Blackwell target groups: " << feedback;
}

TEST_F(RunCli, ValidateChecksEverythingAndGeneratesNothing) {
  auto r =
      run_cli(ws("v"), {"run", "--model", "files:" + files_.string(), "--problems", "all", "--validate", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_EQ(r.output["ok"], true);
  EXPECT_EQ(r.output["prompts"].size(), 9u) << "every problem: the paper's five and the extended suite's four";
  EXPECT_EQ(r.output["model"]["ok"], true);
  EXPECT_FALSE(std::filesystem::exists(ws("v") / "ptxbench.db")) << "nothing stored";
  auto bad = run_cli(ws("v"), {"run", "--model", "files:/no/such/folder", "--validate"});
  EXPECT_EQ(bad.process.exit_code, 1);
  EXPECT_TRUE(has(bad.process.err, "not a folder")) << bad.process.err;
}

TEST_F(RunCli, BadFlagsAndConfigsAreNamed) {
  const std::string model = "files:" + files_.string();
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  write(root_ / "bad.toml", "model = \"" + model + "\"\nturns = 2\ntrajectoris = 3\n");
  write(root_ / "good.toml",
        "model = \"" + model + "\"\nproblems = [\"gemm\"]\ntrajectories = 1\nturns = 5\n[evaluation]\ngpu = false\n");
  const std::vector<Case> cases{
      {{"run", "--config", (root_ / "bad.toml").string()}, "bad.toml:3: 'trajectoris': unknown key"},
      {{"run", "--model", model, "--context-turns", "few"}, "--context-turns 'few'"},
      {{"run", "--model", model, "--model-arg", "api_key=sk-123"}, "would store a secret"},
      {{"run", "--model", "gpt5"}, "expected PROVIDER:MODEL"},
      {{"run", "--model", "nosuch:model"}, "unknown model provider 'nosuch'"},
      {{"run", "--model", model, "--problems", "fft"}, "unknown problem 'fft'"},
      {{"run", "--model", model, "--trajectories", "0"}, "trajectories must be at least 1"},
      {{"run", "--model", model, "--arch", "sm_80"}, "sm_80"},
      {{"run", "--model", model, "--model-arg", "temperature=1", "--validate"},
       "files: unknown model argument 'temperature'"},
      {{"run"}, "no model given"},
      {{"runs", "show", "nope"}, "no workspace database"},
  };
  for (const auto& c : cases) {
    auto r = run_cli(ws("bad"), c.args);
    EXPECT_EQ(r.process.exit_code, 1) << c.expect << "\n" << r.process.err;
    EXPECT_TRUE(has(r.process.err, c.expect)) << "expected '" << c.expect << "' in: " << r.process.err;
  }
  // A flag overrides the config file; the same name with other settings is refused.
  auto ok =
      run_cli(ws("cfg"), {"run", "--config", (root_ / "good.toml").string(), "--turns", "1", "--run-name", "cfg"});
  ASSERT_EQ(ok.process.exit_code, 0) << ok.process.err;
  auto list = run_cli(ws("cfg"), {"runs", "list", "--json"});
  EXPECT_EQ(list.output[0]["turns"], 1);
  auto other = run_cli(ws("cfg"), {"run", "--config", (root_ / "good.toml").string(), "--turns", "1", "--run-name",
                                   "cfg", "--knowledge", "none"});
  EXPECT_EQ(other.process.exit_code, 1);
  EXPECT_TRUE(has(other.process.err, "different configuration")) << other.process.err;
  auto missing = run_cli(ws("cfg"), {"runs", "show", "nope"});
  EXPECT_EQ(missing.process.exit_code, 1);
  EXPECT_TRUE(has(missing.process.err, "no run 'nope'")) << missing.process.err;
}

TEST_F(RunCli, ShippedDemoReplaysEveryProblem) {
  auto r = run_cli(ws("demo"), {"run", "--model", "replay:examples/demo-run.jsonl", "--problems", "all",
                                "--trajectories", "1", "--turns", "2", "--no-gpu", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ASSERT_EQ(r.output["problems"].size(), 9u);
  for (const auto& p : r.output["problems"])
    EXPECT_EQ(p["states"], json({{"compile_error", 1}, {"not_run", 1}})) << p.dump();
  // Again: the same command resumes a complete run, runs nothing and says the same.
  auto again = run_cli(ws("demo"), {"run", "--model", "replay:examples/demo-run.jsonl", "--problems", "all",
                                    "--trajectories", "1", "--turns", "2", "--no-gpu", "--json"});
  ASSERT_EQ(again.process.exit_code, 0) << again.process.err;
  EXPECT_EQ(again.output["invocation"]["new_turns"], 0);
  EXPECT_EQ(again.output["problems"], r.output["problems"]);
}

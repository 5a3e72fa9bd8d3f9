// `ptxbench fixit build/export/stats` end to end on a CPU machine: a workspace made by `ptxbench run
// --model files:` whose candidates build with the real nvcc and pass the real static checks, their
// GPU stages played by the stand-in worker (fake_worker.py marker: each candidate says in its shared
// object what to play; judged through the in-process lane, --local: the service engine's health
// probe needs a real GPU, and scripts/fixit_h200.sh runs the engine path on one); a teacher on loopback that answers by
// what it is asked (a wrong fix, a right fix, a reply without code, a reply past the client's timeout); kill -9 and
// resume; the exports loaded by their consumers' own loaders (tests/fixit/load_exports.py).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <random>

#include "support/cli.h"
#include "support/routed_server.h"
#include "support/stand_in_worker.h"

namespace fs = std::filesystem;
using namespace ptxbench;
using namespace ptxbench::test;

namespace {

// A candidate that builds fast and passes the static checks; the stand-in worker plays `marker`.
std::string candidate(const std::string& entry, const std::string& marker, const std::string& tag,
                      const std::string& extra = "") {
  return "// TAG=" + tag + "\n" + extra +
         "__global__ void scale(float* x) { if (x) x[threadIdx.x] *= 2.f; }\n"
         "extern \"C\" const char ptxbench_fake_marker[] = \"PTXBENCH_FAKE:" +
         marker +
         "\";\n"
         "extern \"C\" cudaError_t " +
         entry +
         "(const void* a, const void* b, const void* c, void* d, void* e, int x, int y, int z,"
         " int w, cudaStream_t s) { scale<<<1, 32, 0, s>>>(static_cast<float*>(d)); return cudaGetLastError(); }\n";
}

const std::string kProse =
    "The first attempt forgot the semicolon after the kernel's declaration, so the front end could not parse the entry "
    "point; this version declares it properly and launches on the given stream.";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

class FixitCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_workspace("fixit");
    ws_ = root_ / "ws";
    worker_ = stand_in_worker(root_ / "worker", "marker");
    // The model's turns: files: layout DIR/<problem>/<trajectory>/<turn>.
    const fs::path m = root_ / "model";
    write(m / "mha_fwd/0/0.cu", candidate("ptxbench_mha_fwd", "correct:1.2", "syntax", "int broken(\n"));
    write(m / "mha_fwd/0/1.md",
          kProse + "\n\n```cuda\n" + candidate("ptxbench_mha_fwd", "correct:1.2", "syntax-fixed") + "```\n");
    write(m / "mha_fwd/1/0.cu", candidate("ptxbench_mha_fwd", "incorrect", "incorrect"));
    write(m / "mha_fwd/2/0.cu", candidate("ptxbench_mha_fwd", "runtime_error", "runtime"));
    write(m / "mha_fwd/3/0.cu", candidate("ptxbench_mha_fwd", "correct:1", "forbidden", "#include <cublas_v2.h>\n"));
    write(m / "gemm/all/0.cu", candidate("ptxbench_gemm", "incorrect", "heldout"));
    // A recipe over 4ops (GEMM held out); no target requirement: the stand-in worker counts nothing.
    write(root_ / "recipes/t.toml",
          "name = \"t\"\ntitle = \"test recipe\"\nsuite = \"4ops\"\n[fix]\nattempts = 3\n"
          "require_target = false\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  CliRun cli(const std::vector<std::string>& args, std::chrono::seconds timeout = std::chrono::seconds(900)) {
    return run_cli(ws_, args, timeout);
  }
  std::vector<std::string> build_args(const std::string& url, const std::string& name) {
    return {"fixit",
            "build",
            "--runs",
            "src",
            "--recipe",
            (root_ / "recipes/t.toml").string(),
            "--teacher",
            "llamacpp:teacher",
            "--teacher-arg",
            "base_url=" + url + "/v1",
            "--teacher-arg",
            "timeout_s=3",
            "--teacher-arg",
            "max_attempts=1",
            "--teacher-arg",
            "max_concurrency=4",
            "--teacher-price",
            "1,2",
            "--worker",
            worker_.string(),
            "--no-sanitize",
            "--no-probe",
            "--no-timing",
            "--build-name",
            name,
            "--local",
            "--json"};
  }
  void make_source_run() {
    const CliRun r = cli({"run", "--model", "files:" + (root_ / "model").string(), "--problems", "mha_fwd,gemm",
                          "--trajectories", "4", "--turns", "2", "--run-name", "src", "--worker", worker_.string(),
                          "--no-sanitize", "--no-probe", "--json"});
    ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  }
  fs::path root_, ws_, worker_;
};

// The teacher: explains when asked to, else answers each failing kernel's attempts by a script.
struct Teacher {
  bool time_out_forbidden = true;
  int delay_ms = 0;
  static std::string tag_of(const json& body) {
    const std::string first = body["messages"][1]["content"].get<std::string>();  // [0] is the system text
    const auto at = first.find("TAG=");
    return at == std::string::npos ? "?" : first.substr(at + 4, first.find('\n', at) - at - 4);
  }
  static int attempt_of(const json& body) {
    int n = 0;
    for (const auto& m : body["messages"]) n += m["role"] == "assistant";
    return n;
  }
  static std::string fix(const std::string& tag, const std::string& marker) {
    return kProse + "\n\n```cuda\n" + candidate("ptxbench_mha_fwd", marker, tag + "-fix") + "```\n";
  }
  RoutedAnswer operator()(const json& body) const {
    const std::string last = body["messages"].back()["content"].get<std::string>();
    if (last.find("## A verified") != std::string::npos) return {kProse, delay_ms};
    const std::string tag = tag_of(body);
    const int attempt = attempt_of(body);
    if (tag == "incorrect") return {fix(tag, attempt == 0 ? "incorrect" : "correct:1.5"), delay_ms};
    if (tag == "runtime")
      return {attempt == 0 ? std::string("I cannot tell what is wrong without more output.") : fix(tag, "correct:1.1"),
              delay_ms};
    if (tag == "forbidden") return {fix(tag, "correct:1.3"), time_out_forbidden ? 5000 : delay_ms};
    return {"unexpected request for " + tag, delay_ms};
  }
};

std::map<std::string, int> counts(const json& j) {
  std::map<std::string, int> m;
  for (const auto& [k, v] : j.items()) m[k] = v.get<int>();
  return m;
}

TEST_F(FixitCli, FailingTurnsBecomeJudgedRecordsTheTeacherIsRetriedAndHeldOutProblemsAreRefused) {
  make_source_run();
  Teacher script;
  RoutedServer server([&](const json& b) { return script(b); });

  // First invocation: the forbidden kernel's teacher answers past the client's timeout.
  const CliRun first = cli(build_args(server.url(), "b1"));
  ASSERT_EQ(first.process.exit_code, 3) << first.process.out << first.process.err;  // stopped: an item is pending
  const json& o1 = first.output;
  EXPECT_EQ(o1["turns_read"], 16);
  EXPECT_EQ(counts(o1["items"]), (std::map<std::string, int>{{"pending", 1}, {"record", 3}, {"refused", 4}}));
  EXPECT_EQ(o1["reasons"]["held_out"], 4);
  EXPECT_EQ(o1["infra_errors"], 1);
  EXPECT_EQ(server.requests().size(), 5u);  // incorrect x2, runtime x2, forbidden x1 (timed out)

  // Second invocation: the teacher answers; nothing already stored is asked again.
  script.time_out_forbidden = false;
  const CliRun second = cli(build_args(server.url(), "b1"));
  ASSERT_EQ(second.process.exit_code, 0) << second.process.out << second.process.err;
  EXPECT_EQ(counts(second.output["items"]), (std::map<std::string, int>{{"record", 4}, {"refused", 4}}));
  EXPECT_EQ(second.output["new_records"], 1);
  EXPECT_EQ(server.requests().size(), 6u);
  EXPECT_EQ(Teacher::tag_of(server.requests().back().body), "forbidden");

  // The records, by class and source (hand-computed): compile_error by its own later turn; incorrect
  // and runtime_error by the teacher's second try; forbidden by the teacher's first answered try.
  const CliRun recs = cli({"fixit", "export", "--build", "b1", "--format", "records"});
  ASSERT_EQ(recs.process.exit_code, 0) << recs.process.err;
  ASSERT_TRUE(recs.output.is_array()) << recs.process.out.substr(0, 500);
  std::map<std::string, std::string> source_of;
  std::map<std::string, int> attempts_of;
  for (const auto& r : recs.output) {
    source_of[r["error"]["class"]] = r["fix"]["source"];
    attempts_of[r["error"]["class"]] = r["fix"]["teacher_attempts"];
    EXPECT_EQ(r["split"], "train");
    EXPECT_EQ(r["fix"]["verdict"], "correct");
    EXPECT_EQ(r["target"]["explanation"], kProse);
    EXPECT_FALSE(r["context"]["feedback"].get<std::string>().empty());
    EXPECT_FALSE(r["context"]["system"].get<std::string>().empty());
  }
  EXPECT_EQ(source_of, (std::map<std::string, std::string>{{"compile_error", "trajectory"},
                                                           {"forbidden", "teacher"},
                                                           {"incorrect", "teacher"},
                                                           {"runtime_error", "teacher"}}));
  EXPECT_EQ(attempts_of["incorrect"], 2);
  EXPECT_EQ(attempts_of["runtime_error"], 2);
  EXPECT_EQ(attempts_of["forbidden"], 1);  // the timed-out call is no attempt

  // stats: every item with its reason.
  const CliRun stats = cli({"fixit", "stats", "--build", "b1", "--items", "--format", "json"});
  ASSERT_EQ(stats.process.exit_code, 0) << stats.process.err;
  bool refused_row = false;
  for (const auto& t : stats.output["tables"])
    if (t["name"] == "fixit_items")
      for (const auto& row : t["rows"])
        if (row["status"] == "refused")
          refused_row = row["problem"] == "gemm" && row["reason"] == "held_out" && row["items"] == 4;
  EXPECT_TRUE(refused_row) << stats.process.out.substr(0, 3000);
  const CliRun table = cli({"fixit", "stats"});
  ASSERT_EQ(table.process.exit_code, 0) << table.process.err;
  EXPECT_NE(table.process.out.find("Fixit records"), std::string::npos) << table.process.out;
  // The workspace's report carries the builds (the HTML report plots records per problem per recipe).
  const CliRun report = cli({"report", "--format", "json", "--table", "fixit_records"});
  ASSERT_EQ(report.process.exit_code, 0) << report.process.err;
  EXPECT_EQ(report.output["tables"][0]["rows"].size(), 4u) << report.process.out.substr(0, 2000);

  // Every export, loaded by its consumer's own loader.
  for (const char* f : {"trl", "sharegpt", "openai"}) {
    const fs::path out = root_ / (std::string(f) + ".jsonl");
    const CliRun e = cli({"fixit", "export", "--build", "b1", "--format", f, "-o", out.string()});
    ASSERT_EQ(e.process.exit_code, 0) << e.process.err;
    EXPECT_TRUE(fs::exists(out.string() + ".card.md"));
  }
  ProcessOptions po;
  po.timeout = std::chrono::seconds(600);
  // The training environment (training/setup.sh, installed by the test setup) has TRL and the
  // tokenizer's GGUF reader; without it, datasets alone is checked and TRL's part says it skipped.
  const fs::path venv_python = source_dir() / "training/.venv/bin/python";
  const std::string python = fs::exists(venv_python) ? venv_python.string() : "python3";
  const ProcessResult load = run_process(
      {python, (source_dir() / "tests/fixit/load_exports.py").string(), "--records", "4",
       (root_ / "trl.jsonl").string(), (root_ / "sharegpt.jsonl").string(), (root_ / "openai.jsonl").string()},
      po);
  EXPECT_EQ(load.exit_code, 0) << load.out << load.err;
  std::cout << load.out;
}

TEST_F(FixitCli, KillNineAtAnyMomentRepeatsNoStoredTeacherCallAndLosesNoRecord) {
  make_source_run();
  Teacher script;
  script.time_out_forbidden = false;
  script.delay_ms = 700;
  RoutedServer server([&](const json& b) { return script(b); });
  std::vector<std::string> argv{(bin_dir() / "ptxbench").string(), "--workspace", ws_.string()};
  const auto args = build_args(server.url(), "k");
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--parallel", "1"});
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  int kills = 0, code = -1;
  std::vector<std::chrono::steady_clock::time_point> kill_times;
  for (int attempt = 0; attempt < 6 && code != 0; ++attempt) {
    ProcessOptions o;
    o.working_dir = source_dir().string();
    o.timeout = attempt < 3 ? std::chrono::milliseconds(std::uniform_int_distribution<int>(2000, 9000)(rng))
                            : std::chrono::milliseconds(600000);
    const ProcessResult p = run_process(argv, o);
    if (p.timed_out) ++kills, kill_times.push_back(std::chrono::steady_clock::now());
    else code = p.exit_code;
  }
  ASSERT_EQ(code, 0) << "seed " << seed;
  EXPECT_GE(kills, 1) << "seed " << seed;
  const CliRun recs = cli({"fixit", "export", "--build", "k", "--format", "records"});
  ASSERT_TRUE(recs.output.is_array()) << recs.process.err;
  EXPECT_EQ(recs.output.size(), 4u) << "seed " << seed;
  // A (tag, attempt) asked twice must have had its first answer in flight at a kill (sent less than
  // a moment before it, so never stored): every answer stored is never asked for again.
  std::map<std::pair<std::string, int>, std::vector<RoutedRequest>> asked;
  for (const auto& r : server.requests()) asked[{Teacher::tag_of(r.body), Teacher::attempt_of(r.body)}].push_back(r);
  for (const auto& [key, rs] : asked) {
    if (rs.size() < 2) continue;
    const auto answered = rs.front().answered;
    bool in_flight = false;
    const bool never_answered = answered == std::chrono::steady_clock::time_point{};
    for (const auto& k : kill_times)
      in_flight =
          in_flight || (k >= rs.front().received && (never_answered || k - answered < std::chrono::milliseconds(500)));
    EXPECT_TRUE(in_flight) << key.first << " attempt " << key.second << " asked " << rs.size() << " times (seed "
                           << seed << ")";
  }
}

TEST_F(FixitCli, BadInputIsAClearError) {
  make_source_run();
  auto r = cli({"fixit", "build", "--runs", "nope", "--recipe", "s1"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("no run 'nope'"), std::string::npos) << r.process.err;
  r = cli({"fixit", "build", "--runs", "src", "--recipe", "s9"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("unknown recipe 's9'"), std::string::npos) << r.process.err;
  write(root_ / "bad.jsonl", "{\"format\": \"something/else\"}\n");
  r = cli({"fixit", "build", "--runs", (root_ / "bad.jsonl").string(), "--recipe", "s1", "--no-teacher"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("bad.jsonl:1: format 'something/else' is not ptxbench.turn/1"), std::string::npos)
      << r.process.err;
  r = cli({"fixit", "export", "--build", "none"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("no Fixit build 'none'"), std::string::npos) << r.process.err;
}

TEST_F(FixitCli, ARunsExportFileIsASourceLikeTheWorkspace) {
  make_source_run();
  const fs::path file = root_ / "src.jsonl";
  ASSERT_EQ(cli({"runs", "export", "src", "--jsonl", "-o", file.string()}).process.exit_code, 0);
  // No teacher: only the trajectory's own fix becomes a record; the exported file reads as the run.
  const CliRun r =
      cli({"fixit", "build", "--runs", file.string(), "--recipe", (root_ / "recipes/t.toml").string(), "--no-teacher",
           "--worker", worker_.string(), "--no-sanitize", "--no-probe", "--no-timing", "--local", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  EXPECT_EQ(r.output["records"], 1);
  EXPECT_EQ(r.output["turns_read"], 16);
  EXPECT_EQ(counts(r.output["items"]), (std::map<std::string, int>{{"dropped", 3}, {"record", 1}, {"refused", 4}}));
}

}  // namespace

// Issue 12 end to end, on the CPU path: what a hostile or careless candidate could do to the
// harness through `ptxbench eval`, and what now happens instead. The GPU-side plumbing (the
// worker's sandbox, its authenticated result channel, figures derived in the parent) runs with a
// stand-in worker (tests/e2e/fake_worker.py) that speaks the worker's protocol and plays the
// candidate's attack.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/bytes.h"
#include "support/cli.h"
#include "support/stand_in_worker.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::test;
namespace fs = std::filesystem;

namespace {

class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = fresh_workspace(std::string("hostile-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(ws_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_.path() / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  CliRun eval(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
    args.insert(args.begin(), "eval");
    return run_cli(ws_, args, std::chrono::seconds(600), env);
  }
  static std::string gemm_body(const std::string& host_code) {
    return "#include \"interface.h\"\n" + host_code +
           "\nextern \"C\" cudaError_t ptxbench_gemm(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, "
           "int, int,"
           " cudaStream_t) {\n  evade();\n  return cudaSuccess;\n}\n";
  }
  fs::path ws_;
  TempDir dir_{"ptxbench-hostile"};
};

std::string dump(const CliRun& r) { return r.process.out + "\n" + r.process.err; }

// --- 1. The build leaks nothing of the host. ---

TEST_F(Hostile, IncludingEtcPasswdDoesNotEchoIt) {
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("c.cu", "#include \"/etc/passwd\"\n").string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_TRUE(r.output["verdict"] == "compile_error" || r.output["verdict"] == "forbidden") << r.output["reason"];
  EXPECT_EQ(r.output.dump().find("root:x:0:0"), std::string::npos) << r.output.dump(2);
  EXPECT_EQ(r.output.dump().find("/bin/bash"), std::string::npos) << r.output.dump(2);
}

TEST_F(Hostile, TheProblemFolderIsNotOnTheIncludePath) {
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("c.cu", "#include \"problem.toml\"\n").string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_NE(r.output["verdict"], "not_run");
  const std::string text = r.output.dump();
  EXPECT_EQ(text.find("never shown to the model"), std::string::npos) << r.output.dump(2);
  EXPECT_EQ(text.find("Llama-3-8B"), std::string::npos) << r.output.dump(2);
}

TEST_F(Hostile, IncludingDevZeroEndsWithinTheMemoryLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("c.cu", "#include \"/dev/zero\"\n").string()});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_TRUE(r.output["verdict"] == "compile_error" || r.output["verdict"] == "forbidden") << r.output["reason"];
  EXPECT_LT(secs, 120);
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);  // the largest of ptxbench's descendants (each was waited for)
  EXPECT_LT(u.ru_maxrss, 3L << 20) << "KiB";
  const json limits = r.output["environment"]["sandbox"]["compile"]["rlimits"];
  EXPECT_TRUE(limits.contains("address_space_bytes")) << r.output["environment"]["sandbox"].dump(2);
}

TEST_F(Hostile, MacroAndNestedIncludesOfALibraryAreForbidden) {
  auto r = eval({"--no-gpu", "--json", "-p", "gemm",
                 write("m.cu", gemm_body("#define LIB <cublas_v2.h>\n#include LIB\nstatic void evade() {}")).string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "forbidden") << r.output["reason"];
  EXPECT_NE(r.output["reason"].get<std::string>().find("cuBLAS"), std::string::npos) << r.output["reason"];
  write("lib/helper.h", "#pragma once\n#include <cublasLt.h>\n");
  r = eval({"--no-gpu", "--json", "-p", "gemm",
            write("lib/n.cu", gemm_body("#include \"helper.h\"\nstatic void evade() {}")).string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "forbidden") << r.output["reason"];
  EXPECT_NE(r.output["reason"].get<std::string>().find("cuBLAS"), std::string::npos) << r.output["reason"];
}

// --- 2. The import check is an allowlist: each evasion that passed the denylist. ---

struct Evasion {
  const char* name;
  const char* code;
  const char* reason;  // part of the static stage's message
};

class ImportEvasion : public Hostile, public ::testing::WithParamInterface<Evasion> {};

TEST_P(ImportEvasion, IsForbidden) {
  const Evasion& e = GetParam();
  const auto r =
      eval({"--no-gpu", "--json", "-p", "gemm", write(std::string(e.name) + ".cu", gemm_body(e.code)).string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "forbidden") << r.output["reason"] << "\n" << r.output.dump(2).substr(0, 3000);
  EXPECT_NE(r.output["reason"].get<std::string>().find(e.reason), std::string::npos) << r.output["reason"];
}

INSTANTIATE_TEST_SUITE_P(
    EachPath, ImportEvasion,
    ::testing::Values(
        Evasion{"ofstream",
                "#include <fstream>\nstatic void evade() { std::ofstream f(\"/proc/self/fd/3\"); f << \"x\"; }",
                "file streams"},
        Evasion{"socket",
                "#include <sys/socket.h>\n#include <netinet/in.h>\nstatic void evade() { int s = socket(AF_INET, "
                "SOCK_STREAM, 0);"
                " sockaddr_in a{}; connect(s, (sockaddr*)&a, sizeof a); }",
                "network access"},
        Evasion{"getenv",
                "#include <cstdlib>\n#include <cstdio>\nstatic void evade() { "
                "std::puts(std::getenv(\"OPENAI_API_KEY\")); }",
                "reading the environment"},
        Evasion{"remove_all", "#include <filesystem>\nstatic void evade() { std::filesystem::remove_all(\"/tmp/x\"); }",
                "the file system"},
        Evasion{"setsid", "#include <unistd.h>\nstatic void evade() { setsid(); }", "starting processes"},
        Evasion{"exit", "#include <unistd.h>\nstatic void evade() { _exit(0); }", "ending the process"},
        Evasion{"phdr",
                "#include <link.h>\nstatic int cb(dl_phdr_info*, size_t, void*) { return 0; }\n"
                "static void evade() { dl_iterate_phdr(cb, nullptr); }",
                "walking the loaded objects"}),
    [](const auto& info) { return std::string(info.param.name); });

// Every reference and every honest control still passes the static stage (the allowlists are not
// too tight). Relative includes of other references keep working.
TEST_F(Hostile, EveryReferenceAndControlPassesTheStaticStage) {
  std::vector<std::string> hopper, blackwell;
  for (const auto& p : fs::directory_iterator(source_dir() / "problems"))
    if (fs::is_directory(p.path() / "reference"))
      for (const auto& f : fs::directory_iterator(p.path() / "reference"))
        if (f.path().extension() == ".cu")
          (f.path().filename().string().find("blackwell") != std::string::npos ? blackwell : hopper)
              .push_back(f.path().string());
  std::vector<std::string> controls, attention_controls;  // by their names' problem: gemm_*, attention_fwd_*
  for (const auto& f : fs::directory_iterator(source_dir() / "tests/gpu/candidates/controls"))
    if (f.path().extension() == ".cu")
      (f.path().filename().string().starts_with("attention_fwd") ? attention_controls : controls)
          .push_back(f.path().string());
  auto check = [&](std::vector<std::string> args, const std::vector<std::string>& files) {
    args.insert(args.end(), files.begin(), files.end());
    const auto r = eval(args);
    std::istringstream lines(r.process.out);
    size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      const json rec = json::parse(line);
      EXPECT_EQ(rec["verdict"], "not_run") << rec["candidate"]["path"] << ": " << rec["reason"];
    }
    EXPECT_EQ(n, files.size()) << dump(r);
  };
  check({"--no-gpu", "--json", "--no-store"}, hopper);
  check({"--no-gpu", "--json", "--no-store", "-p", "gemm"}, controls);
  check({"--no-gpu", "--json", "--no-store", "-p", "mha_fwd"}, attention_controls);
  check({"--no-gpu", "--json", "--no-store", "--arch", "sm_100a"}, blackwell);
}

// --- 5. Bytes, not text; every record printed and stored, or a clear error. ---

TEST_F(Hostile, NonUtf8SourceAndDiagnosticsAreStoredAndPrinted) {
  const std::string bytes = "int x = \"caf\xe9 \xff\";\nint y = undefined_\xfe;\n";
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("latin1.cu", bytes).string()});
  EXPECT_EQ(r.process.exit_code, 10) << dump(r);
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "compile_error");
  ASSERT_FALSE(r.output["id"].is_null()) << r.output.dump();
  bool exact = false;
  for (const auto& [pointer, b64] : r.output["non_utf8"].items())
    exact = exact || base64_decode(b64.get<std::string>()).find("\xff") != std::string::npos;
  EXPECT_TRUE(exact) << r.output["non_utf8"].dump();
  const auto stored = run_cli(ws_, {"results", "--id", std::to_string(r.output["id"].get<long long>()), "--json"});
  EXPECT_EQ(stored.process.exit_code, 0) << dump(stored);
}

TEST_F(Hostile, JsonIsOneRecordPerLineAlwaysTheSameShape) {
  const auto a = write("a.cu", "int a = ;\n"), b = write("b.cu", "#include \"interface.h\"\n");
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", a.string(), b.string()});
  std::istringstream lines(r.process.out);
  std::vector<json> records;
  for (std::string line; std::getline(lines, line);) records.push_back(json::parse(line, nullptr, false));
  ASSERT_EQ(records.size(), 2u) << r.process.out;
  std::vector<std::string> k0, k1;
  for (const auto& [k, v] : records[0].items()) k0.push_back(k);
  for (const auto& [k, v] : records[1].items()) k1.push_back(k);
  EXPECT_EQ(k0, k1);
  EXPECT_TRUE(records[0].contains("id") && records[0].contains("store_error")) << records[0].dump();
}

TEST_F(Hostile, EachRecordIsPrintedAsItsEvaluationFinishes) {
  // A stand-in nvcc: the first candidate fails at once, the second never finishes.
  const fs::path nvcc = write("bin/nvcc",
                              "#!/bin/sh\nfor a; do last=$a; done\ncase \"$last\" in *slow*) sleep 60;; esac\n"
                              "echo \"$last(1): error: stand-in failure\" >&2; exit 1\n");
  chmod(nvcc.c_str(), 0755);
  std::vector<std::string> argv{(bin_dir() / "ptxbench").string(),
                                "--workspace",
                                ws_.string(),
                                "eval",
                                "--no-gpu",
                                "--json",
                                "-p",
                                "gemm",
                                write("fast.cu", "x\n").string(),
                                write("slow.cu", "x\n").string()};
  ProcessOptions o;
  o.timeout = std::chrono::seconds(20);
  o.working_dir = source_dir().string();
  o.extra_env = {"PTXBENCH_NVCC=" + nvcc.string()};
  const auto p = run_process(argv, o);
  EXPECT_TRUE(p.timed_out);
  const json first = json::parse(p.out.substr(0, p.out.find('\n')), nullptr, false);
  ASSERT_TRUE(first.is_object()) << p.out << p.err;
  EXPECT_EQ(first["verdict"], "compile_error");
}

TEST_F(Hostile, AStoreFailureSaysSoAndExitsNonZero) {
  // A database whose inserts fail (as on a full disk): the record is still printed, not "stored as 0".
  fs::create_directories(ws_);
  const auto made = run_process(
      {"python3", "-c",
       "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript('''"
       "CREATE TABLE evaluations (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,"
       " problem TEXT NOT NULL, arch TEXT NOT NULL, gpu TEXT NOT NULL, candidate_sha256 TEXT NOT NULL,"
       " verdict TEXT NOT NULL, target_executed INTEGER NOT NULL, speedup_geomean REAL, record_json TEXT NOT NULL);"
       "CREATE TRIGGER full BEFORE INSERT ON evaluations BEGIN SELECT RAISE(ABORT, \"disk full (test)\"); END;''')",
       (ws_ / "ptxbench.db").string()});
  ASSERT_TRUE(made.ok()) << made.err;
  const auto r = eval({"--no-gpu", "-p", "gemm", write("c.cu", "int a = ;\n").string()});
  EXPECT_EQ(r.process.exit_code, 20) << dump(r);
  EXPECT_EQ(r.process.out.find("stored as evaluation"), std::string::npos) << r.process.out;
  EXPECT_NE(r.process.out.find("NOT STORED"), std::string::npos) << r.process.out;
  EXPECT_NE(r.process.err.find("disk full (test)"), std::string::npos) << r.process.err;
}

TEST_F(Hostile, AnUnreadableCandidateIsABadInputError) {
  // /proc/self/mem is a regular file that no one can read from offset 0, root included.
  const auto r = eval({"--no-gpu", "-p", "gemm", "/proc/self/mem"});
  EXPECT_EQ(r.process.exit_code, 1) << dump(r);
  EXPECT_NE(r.process.err.find("cannot be read"), std::string::npos) << r.process.err;
}

TEST_F(Hostile, AnUnwritableWorkspaceIsABadInputErrorAndNoStoreNeedsNone) {
  const std::string c = write("c.cu", "int a = ;\n").string();
  auto r = run_cli("/proc/self/no-such-workspace", {"eval", "--no-gpu", "-p", "gemm", c});
  EXPECT_EQ(r.process.exit_code, 1) << dump(r);
  EXPECT_NE(r.process.err.find("workspace"), std::string::npos) << r.process.err;
  r = run_cli("/proc/self/no-such-workspace", {"eval", "--no-gpu", "--no-store", "-p", "gemm", c});
  EXPECT_EQ(r.process.exit_code, 10) << dump(r);
}

TEST_F(Hostile, ACorruptWorkspaceIsABadInputError) {
  const std::string c = write("c.cu", "int a = ;\n").string();
  fs::create_directories(ws_);
  std::ofstream(ws_ / "ptxbench.db", std::ios::binary)
      << std::string("SQLite format 3\0", 16) << "not a database at all";
  const auto r = run_cli(ws_, {"eval", "--no-gpu", "--json", "-p", "gemm", c});
  EXPECT_EQ(r.process.exit_code, 1) << dump(r);
  EXPECT_NE(r.process.err.find("workspace database"), std::string::npos) << r.process.err;
  EXPECT_EQ(r.process.err.find("internal error"), std::string::npos) << r.process.err;
}

TEST_F(Hostile, ConcurrentWritersEachStoreTheirRecord) {
  constexpr int kWriters = 6;
  std::vector<fs::path> files;
  for (int i = 0; i < kWriters; ++i)
    files.push_back(write("c" + std::to_string(i) + ".cu", "int a" + std::to_string(i) + " = ;\n"));
  std::vector<pid_t> pids;
  for (int i = 0; i < kWriters; ++i) {
    const std::string out = (dir_.path() / ("out" + std::to_string(i) + ".json")).string();
    const std::string cmd = shell_quote((bin_dir() / "ptxbench").string()) + " --workspace " +
                            shell_quote(ws_.string()) + " eval --no-gpu --json -p gemm " +
                            shell_quote(files[i].string()) + " > " + shell_quote(out) + " 2> " +
                            shell_quote(out + ".err");
    const pid_t pid = fork();
    if (pid == 0) {
      if (chdir(source_dir().c_str()) != 0) _exit(126);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    pids.push_back(pid);
  }
  std::set<long long> ids;
  for (int i = 0; i < kWriters; ++i) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    std::ifstream in(dir_.path() / ("out" + std::to_string(i) + ".json"));
    std::stringstream ss;
    ss << in.rdbuf();
    const json rec = json::parse(ss.str(), nullptr, false);
    ASSERT_TRUE(rec.is_object()) << ss.str();
    EXPECT_TRUE(rec["store_error"].is_null()) << rec["store_error"];
    EXPECT_EQ(rec["verdict"], "compile_error");
    ids.insert(rec["id"].get<long long>());
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kWriters)) << "every writer got its own evaluation id";
  const auto listed = run_cli(ws_, {"results", "--json"});
  ASSERT_EQ(listed.process.exit_code, 0) << dump(listed);
  EXPECT_NE(listed.process.out.find("\"id\": " + std::to_string(*ids.rbegin())), std::string::npos);
}

// --- 6. Strict specs: `problems` lists the good ones and reports the bad ones. ---

TEST_F(Hostile, ProblemsListsGoodSpecsAndReportsBadOnes) {
  const fs::path root = dir_.path() / "problems";
  fs::create_directories(root / "gemm");
  fs::copy(source_dir() / "problems" / "gemm", root / "gemm", fs::copy_options::recursive);
  fs::create_directories(root / "bad");
  std::ifstream in(source_dir() / "problems" / "gemm" / "problem.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string toml = ss.str();
  toml.replace(toml.find("name = \"gemm\""), 13, "name = \"bad\"\nmystery = 1");
  std::ofstream(root / "bad" / "problem.toml") << toml;
  const auto r = run_cli(ws_, {"--problems", root.string(), "problems"});
  EXPECT_EQ(r.process.exit_code, 1) << dump(r);
  EXPECT_NE(r.process.out.find("gemm  GEMM"), std::string::npos) << r.process.out;
  EXPECT_NE(r.process.err.find("bad/problem.toml:3: 'mystery': unknown key"), std::string::npos) << r.process.err;
}

// --- 7. CLI polish. ---

TEST_F(Hostile, OptionsBeforeTheSubcommandAndIncludeFolderThenFile) {
  write("inc/extra.h", "#define EXTRA 1\n");
  const auto c = write("c.cu", "#include \"extra.h\"\nint a = ;\n");
  auto r = run_cli(ws_, {"--json", "--no-gpu", "eval", "-p", "gemm", "-I", (dir_.path() / "inc").string(), c.string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "compile_error") << r.output["reason"];
  EXPECT_NE(r.output["reason"].get<std::string>().find("c.cu:2"), std::string::npos) << r.output["reason"];
}

TEST_F(Hostile, VersionNamesTheHarnessTheCommitAndNvcc) {
  const auto r = run_cli(ws_, {"--version"});
  EXPECT_EQ(r.process.exit_code, 0) << dump(r);
  EXPECT_NE(r.process.out.find("ptxbench 0."), std::string::npos) << r.process.out;
  EXPECT_NE(r.process.out.find("commit "), std::string::npos) << r.process.out;
  EXPECT_NE(r.process.out.find("nvcc: "), std::string::npos) << r.process.out;
}

TEST_F(Hostile, VerboseLogsTheCommandsAndTheSandbox) {
  const auto c = write("c.cu", "int a = ;\n").string();
  const auto quiet = eval({"--no-gpu", "-p", "gemm", c});
  const auto loud = eval({"--no-gpu", "-p", "gemm", "--verbose", c});
  EXPECT_EQ(quiet.process.err.find("build command:"), std::string::npos) << quiet.process.err;
  EXPECT_NE(loud.process.err.find("build command:"), std::string::npos) << loud.process.err;
  EXPECT_NE(loud.process.err.find("sandbox"), std::string::npos) << loud.process.err;
}

TEST_F(Hostile, TheProblemIsInferredOrAHintSaysToPassIt) {
  auto r = eval({"--no-gpu", "--json", (source_dir() / "problems/mha_bwd_causal/reference/naive.cu").string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["problem"], "mha_bwd_causal");
  const auto copy = write("fwd.cu",
                          "#include \"interface.h\"\nextern \"C\" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16*, "
                          "const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, float*, int, int, int, int, "
                          "cudaStream_t) { return cudaSuccess; }\n");
  r = eval({"--no-gpu", copy.string()});
  EXPECT_EQ(r.process.exit_code, 1) << dump(r);
  EXPECT_NE(r.process.err.find("mha_fwd, mha_fwd_causal: pass -p"), std::string::npos) << r.process.err;
}

TEST_F(Hostile, CandidatesOptIntoAllowlistedNvccOptions) {
  const std::string cxx20 =
      "// ptxbench-nvcc-options: -std=c++20 --expt-extended-lambda -DNDEBUG\n"
      "#ifndef NDEBUG\n#error NDEBUG was not set\n#endif\n"
      "#include \"interface.h\"\n#include <concepts>\n"
      "template <std::integral T> constexpr T twice(T x) { return 2 * x; }\n"
      "extern \"C\" cudaError_t ptxbench_gemm(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int M, int, "
      "int, "
      "cudaStream_t) { auto f = [] __device__ (int v) { return v; }; (void)f; return twice(M) ? cudaSuccess : "
      "cudaErrorInvalidValue; }\n";
  auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("cxx20.cu", cxx20).string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "not_run") << r.output["reason"];
  const json build = r.output["stages"][0];
  EXPECT_EQ(build["detail"]["candidate_options"], (json{"-std=c++20", "--expt-extended-lambda", "-DNDEBUG"}));
  r = eval(
      {"--no-gpu", "--json", "-p", "gemm", write("bad_opt.cu", "// ptxbench-nvcc-options: -O0\nint x;\n").string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "compile_error");
  EXPECT_NE(r.output["reason"].get<std::string>().find("'-O0' is not allowed"), std::string::npos)
      << r.output["reason"];
}

TEST_F(Hostile, PtxasErrorsPointAtTheCandidatesLine) {
  const std::string src =
      "#include \"interface.h\"\n\n__global__ void k(float* x) {\n  float v = x[0];\n"
      "  asm volatile(\"bogus.op.f32 %0;\" :: \"f\"(v));\n}\n";
  const auto r = eval({"--no-gpu", "--json", "-p", "gemm", write("asm.cu", src).string()});
  ASSERT_TRUE(r.output.is_object()) << dump(r);
  EXPECT_EQ(r.output["verdict"], "compile_error");
  const json d = r.output["stages"][0]["detail"]["diagnostics"][0];
  EXPECT_EQ(d["file"], "asm.cu") << d.dump();
  EXPECT_EQ(d["line"], 5) << d.dump();
  EXPECT_NE(d["message"].get<std::string>().find("PTX line"), std::string::npos) << d.dump();
}

// --- 1 and 3 on the GPU side, through a stand-in worker. ---

class StandInWorker : public Hostile {
 protected:
  // A `ptxbench-worker` in its own folder that runs fake_worker.py with `scenario`.
  fs::path worker(const std::string& scenario) {
    return stand_in_worker(dir_.path() / ("worker-" + scenario.substr(0, scenario.find(':'))), scenario);
  }
  json run(const std::string& scenario, const std::vector<std::string>& env = {}) {
    const auto r = eval({"--json", "--no-sanitize", "--no-probe", "-p", "gemm", "--worker", worker(scenario).string(),
                         (source_dir() / "problems/gemm/reference/naive.cu").string()},
                        env);
    EXPECT_TRUE(r.output.is_object()) << dump(r);
    return r.output;
  }
};

TEST_F(StandInWorker, AnHonestChannelIsBelievedAndItsSpeedupDerived) {
  const json r = run("ok");
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_DOUBLE_EQ(r["speedup_geomean"].get<double>(), 2.0) << r.dump(2).substr(0, 2000);
  EXPECT_TRUE(r["environment"]["sandbox"].contains("worker")) << r["environment"].dump(2);
}

TEST_F(StandInWorker, ForgedResultLinesAreForbidden) {
  const json r = run("forge");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_NE(r["reason"].get<std::string>().find("tampered"), std::string::npos) << r["reason"];
  EXPECT_TRUE(r["speedup_geomean"].is_null());
}

TEST_F(StandInWorker, AStageReportedTwiceOrALineRepeatedIsForbidden) {
  for (const char* scenario : {"duplicate", "replay"}) {
    const json r = run(scenario);
    EXPECT_EQ(r["verdict"], "forbidden") << scenario << ": " << r["reason"];
  }
}

TEST_F(StandInWorker, TheSpeedupComesFromTheMediansNotTheReport) {
  const json r = run("speedup");
  ASSERT_EQ(r["timing"].size(), 1u) << r.dump(2).substr(0, 2000);
  EXPECT_DOUBLE_EQ(r["timing"][0]["speedup"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["speedup_geomean"].get<double>(), 0.5);
}

TEST_F(StandInWorker, TheWorkerSeesNoKeyNoNetworkAndNoWorkspace) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  listen(listener, 4);
  socklen_t n = sizeof a;
  getsockname(listener, reinterpret_cast<sockaddr*>(&a), &n);
  fs::create_directories(ws_);
  std::ofstream(ws_ / "secret.txt") << "the workspace's contents";
  const json r = run("probe:" + std::to_string(ntohs(a.sin_port)), {"OPENAI_API_KEY=sk-test-not-for-candidates"});
  close(listener);
  ASSERT_EQ(r["verdict"], "runtime_error") << r["reason"];
  const json seen = json::parse(stage_of(r, "stream_discipline")["message"].get<std::string>(), nullptr, false);
  ASSERT_TRUE(seen.is_object()) << r["stages"].dump(2);
  for (const auto& name : seen["env"]) EXPECT_EQ(name.get<std::string>().find("KEY"), std::string::npos) << name;
  EXPECT_NE(seen["tcp"], "connected") << seen.dump();
  EXPECT_NE(seen["workspace_secret"], "the workspace's contents") << seen.dump();
  // Written, if at all, into the sandbox's own /tmp, never the host's.
  EXPECT_FALSE(fs::exists("/tmp/ptxbench-sandbox-escape-" + std::to_string(ntohs(a.sin_port)))) << seen.dump();
}

}  // namespace

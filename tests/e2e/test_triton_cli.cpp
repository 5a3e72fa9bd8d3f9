// The Triton track through the CLI on the CPU: eval and run --language triton with the real Triton
// compiler (triton_track/setup.sh's environment) in the sandbox. References compile to the target SASS
// families; every attack in triton_track/attacks/ gets its expected verdict and rule; a Triton compile
// error and a Python exception point at the candidate's line. Skipped, saying why, without Triton.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>

#include "support/cli.h"
#include "support/stand_in_worker.h"

using namespace ptxbench;
using namespace ptxbench::test;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

std::string triton_missing() {
  const fs::path py = source_dir() / "triton_track" / ".venv" / "bin" / "python";
  if (std::getenv("PTXBENCH_TRITON_PYTHON")) return "";
  if (!fs::exists(py))
    return "no Triton environment at " + py.string() + ": run triton_track/setup.sh (scripts/setup.sh --tests does)";
  return "";
}

class TritonCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = triton_missing(); !why.empty()) GTEST_SKIP() << why;
    root_ = fs::temp_directory_path() / ("ptxbench-triton-e2e-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }
  // One record: `eval --no-gpu --json` of `file` for `problem` on `arch`.
  json eval(const fs::path& file, const std::string& problem, const std::string& arch = "sm_90a") {
    auto r = run_cli(root_ / "ws",
                     {"eval", "--no-gpu", "--no-store", "--json", "--arch", arch, "-p", problem, file.string()});
    EXPECT_TRUE(r.output.is_object()) << r.process.out << r.process.err;
    return r.output.is_object() ? r.output : json::object();
  }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = root_ / name;
    std::ofstream(p) << text;
    return p;
  }
  fs::path root_;
};

const json& build_stage(const json& record) {
  for (const auto& s : record["stages"])
    if (s["name"] == "build") return s;
  static const json none = json::object();
  return none;
}

}  // namespace

TEST_F(TritonCli, ReferencesCompileToTheTargetFamiliesForHopperAndBlackwell) {
  const fs::path gemm = source_dir() / "problems" / "gemm" / "triton";
  json plain = eval(gemm / "plain.py", "gemm");
  EXPECT_EQ(plain["language"], "triton");
  EXPECT_EQ(plain["verdict"], "not_run") << plain["reason"];
  EXPECT_GT(plain["static_families"].value("HGMMA", 0), 0) << plain["static_families"];
  EXPECT_FALSE(plain["static_families"].contains("UTMALDG")) << "pointer loads are cp.async, not TMA";
  EXPECT_FALSE(plain["target_static"].get<bool>());

  json tuned = eval(gemm / "tuned.py", "gemm");
  EXPECT_EQ(tuned["verdict"], "not_run") << tuned["reason"];
  EXPECT_GT(tuned["static_families"].value("HGMMA", 0), 0) << tuned["static_families"];
  EXPECT_GT(tuned["static_families"].value("UTMALDG", 0), 0) << tuned["static_families"];
  EXPECT_TRUE(tuned["target_static"].get<bool>());
  // The build ran in the sandbox, on every benchmark shape, with Triton's own cache folder.
  const json& b = build_stage(tuned);
  EXPECT_EQ(b["detail"]["sandbox"]["bubblewrap"].value("used", false) ||
                b["detail"]["sandbox"]["landlock"].value("used", false),
            true)
      << b["detail"]["sandbox"];
  EXPECT_EQ(b["detail"]["shapes"].size(), 4u);
  EXPECT_TRUE(has(b["detail"]["command"].get<std::string>(), "ptxbench_triton.compile_only")) << b["detail"]["command"];

  json blackwell = eval(gemm / "tuned.py", "gemm", "sm_100a");
  EXPECT_EQ(blackwell["verdict"], "not_run") << blackwell["reason"];
  EXPECT_GT(blackwell["static_families"].value("UTCHMMA", 0), 0) << blackwell["static_families"];
  EXPECT_FALSE(blackwell["static_families"].contains("HGMMA"));

  json mha = eval(source_dir() / "problems" / "mha_fwd" / "triton" / "plain.py", "mha_fwd");
  EXPECT_EQ(mha["verdict"], "not_run") << mha["reason"];
  EXPECT_GT(mha["static_families"].value("HGMMA", 0), 0) << mha["static_families"];
  EXPECT_EQ(build_stage(mha)["detail"]["kernels"].size(), 2u) << "D = 128 and D = 64 specialize the kernel twice";
  json mha_tuned = eval(source_dir() / "problems" / "mha_fwd" / "triton" / "tuned.py", "mha_fwd");
  EXPECT_GT(mha_tuned["static_families"].value("UTMALDG", 0), 0) << mha_tuned["static_families"];
  EXPECT_TRUE(mha_tuned["target_static"].get<bool>());
}

TEST_F(TritonCli, EveryReferenceOfEveryProblemBuildsAndPassesTheStaticChecks) {
  // problems/*/triton/{plain,tuned}.py, all in one eval (each file's problem is the folder holding it),
  // on sm_90a: the build (the scan, then every benchmark shape compiled) and the static checks pass; the
  // products are wgmma (QGMMA for gemm_fp8's e4m3, HGMMA otherwise); the tuned references add TMA
  // (UTMALDG, UTMASTG) and so meet problem.toml's sm_90a target groups, the plain ones (pointer loads)
  // do not. The tuned ones again on sm_100a: tcgen05 (UTC*MMA), never wgmma, target groups met.
  std::map<std::string, std::map<std::string, fs::path>> refs;  // problem -> reference -> file
  for (const auto& dir : fs::directory_iterator(source_dir() / "problems")) {
    if (!fs::exists(dir.path() / "triton" / "abi.toml")) continue;
    for (const std::string name : {"plain", "tuned"}) {
      const fs::path f = dir.path() / "triton" / (name + ".py");
      EXPECT_TRUE(fs::exists(f)) << f << ": every problem with a Triton interface has both references";
      if (fs::exists(f)) refs[dir.path().filename().string()][name] = f;
    }
  }
  ASSERT_GE(refs.size(), 9u);
  auto eval_all = [&](const std::string& arch, bool tuned_only) {
    std::vector<std::string> args{"eval", "--no-gpu", "--no-store", "--json", "--language", "triton", "--arch", arch};
    for (const auto& [problem, files] : refs)
      for (const auto& [name, file] : files)
        if (!tuned_only || name == "tuned") args.push_back(file.string());
    auto r = run_cli(root_ / "ws", args);
    EXPECT_TRUE(r.output.is_array()) << r.process.out << r.process.err;
    std::map<std::string, json> by_file;
    for (const auto& rec : r.output.is_array() ? r.output : json::array())
      by_file[rec["candidate"]["path"].get<std::string>()] = rec;
    return by_file;
  };
  for (const std::string arch : {"sm_90a", "sm_100a"}) {
    const bool blackwell = arch == "sm_100a";
    const auto records = eval_all(arch, blackwell);
    for (const auto& [problem, files] : refs)
      for (const auto& [name, file] : files) {
        if (blackwell && name != "tuned") continue;
        SCOPED_TRACE(problem + "/" + name + " on " + arch);
        ASSERT_TRUE(records.count(file.string())) << "no record";
        const json& r = records.at(file.string());
        EXPECT_EQ(r["problem"], problem);
        EXPECT_EQ(r["language"], "triton");
        EXPECT_EQ(r["verdict"], "not_run") << r["reason"];
        EXPECT_EQ(stage_of(r, "build")["status"], "ok") << r["reason"];
        EXPECT_EQ(stage_of(r, "static")["status"], "ok") << r["reason"];
        const json& b = build_stage(r)["detail"];
        EXPECT_GE(b["shapes"].size(), 3u);
        EXPECT_GE(b.value("launches", 0), static_cast<int>(b["shapes"].size())) << "one entry call per benchmark shape";
        const json& fam = r["static_families"];
        const bool fp8 = problem == "gemm_fp8";
        if (blackwell) {
          EXPECT_GT(fam.value(fp8 ? "UTCQMMA" : "UTCHMMA", 0), 0) << fam;
          EXPECT_FALSE(fam.contains("HGMMA") || fam.contains("QGMMA")) << fam;
          EXPECT_TRUE(r["target_static"].get<bool>()) << fam;
          continue;
        }
        EXPECT_GT(fam.value(fp8 ? "QGMMA" : "HGMMA", 0), 0) << fam;
        if (name == "tuned") {
          EXPECT_GT(fam.value("UTMALDG", 0), 0) << fam;
          EXPECT_GT(fam.value("UTMASTG", 0), 0) << fam;
          EXPECT_TRUE(r["target_static"].get<bool>()) << fam;
        } else {
          EXPECT_FALSE(fam.contains("UTMALDG")) << "pointer loads are cp.async, not TMA: " << fam;
          EXPECT_FALSE(r["target_static"].get<bool>()) << fam;
        }
      }
  }
}

TEST_F(TritonCli, EveryAttackGetsItsVerdictAndRule) {
  // triton_track/attacks/expected.json: file -> the scan's rule (the verdict is forbidden, the build's rule
  // that one), "compile_error" (the candidate's error, never an infra_error) or "gpu" (passes the
  // CPU stages: the GPU judge's to catch).
  const fs::path dir = source_dir() / "triton_track" / "attacks";
  std::ifstream in(dir / "expected.json");
  const json expected = json::parse(in);
  size_t checked = 0;
  for (const auto& [name, want] : expected.items()) {
    if (name.starts_with("_")) continue;
    SCOPED_TRACE(name);
    const json r = eval(dir / name, "gemm");
    const std::string rule = want.get<std::string>();
    if (rule == "gpu") {
      EXPECT_EQ(r["verdict"], "not_run") << r["reason"];
    } else if (rule == "compile_error") {
      EXPECT_EQ(r["verdict"], "compile_error") << r["reason"];
    } else {
      EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
      std::set<std::string> rules;
      for (const auto& f : build_stage(r)["detail"].value("findings", json::array())) rules.insert(f.value("rule", ""));
      EXPECT_TRUE(rules.count(rule)) << r["reason"];
    }
    ++checked;
  }
  EXPECT_GE(checked, 30u);
}

TEST_F(TritonCli, CompileErrorsAndExceptionsPointAtTheCandidatesLine) {
  const fs::path bad_dot =
      write("bad_dot.py",
            "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(a, BM: tl.constexpr):\n"
            "    x = tl.load(a + tl.arange(0, BM))\n    y = tl.dot(x, x)\n    tl.store(a + tl.arange(0, BM), y)\n\n\n"
            "def ptxbench_gemm(A, B, C, M, N, K, stream):\n    k[(1,)](A, BM=128)\n");
  json r = eval(bad_dot, "gemm");
  EXPECT_EQ(r["verdict"], "compile_error");
  const json& d = build_stage(r)["detail"]["diagnostics"][0];
  EXPECT_EQ(d["line"], 8) << d;
  EXPECT_EQ(d["file"], "bad_dot.py");
  EXPECT_EQ(d["tool"], "triton");
  EXPECT_TRUE(has(d["message"].get<std::string>(), "ranks")) << d;

  const fs::path raises = write("raises.py",
                                "import triton\n\n\ndef ptxbench_gemm(A, B, C, M, N, K, stream):\n"
                                "    x = M // 0\n");
  r = eval(raises, "gemm");
  EXPECT_EQ(r["verdict"], "compile_error");
  EXPECT_EQ(build_stage(r)["detail"]["diagnostics"][0]["line"], 5);
  EXPECT_TRUE(has(r["reason"].get<std::string>(), "ZeroDivisionError")) << r["reason"];

  const fs::path syntax = write("syntax.py", "import triton\ndef ptxbench_gemm(A, B, C, M, N, K, stream)\n    pass\n");
  r = eval(syntax, "gemm");
  EXPECT_EQ(r["verdict"], "compile_error");
  EXPECT_EQ(build_stage(r)["detail"]["diagnostics"][0]["line"], 2);

  const fs::path wrong_params = write("params.py", "import triton\ndef ptxbench_gemm(A, B, C, stream):\n    pass\n");
  r = eval(wrong_params, "gemm");
  EXPECT_EQ(r["verdict"], "compile_error");
  EXPECT_TRUE(has(r["reason"].get<std::string>(), "(A, B, C, M, N, K, stream)")) << r["reason"];
}

TEST_F(TritonCli, BadUseIsAClearError) {
  const fs::path plain = source_dir() / "problems" / "gemm" / "triton" / "plain.py";
  auto mixed = run_cli(root_ / "ws", {"eval", "--no-gpu", "--no-store", "-p", "gemm", plain.string(),
                                      (source_dir() / "problems" / "gemm" / "reference" / "naive.cu").string()});
  EXPECT_NE(mixed.process.exit_code, 0);
  EXPECT_TRUE(has(mixed.process.err, "mix Triton")) << mixed.process.err;
  // No Triton environment: an infra_error that says how to install it, never a verdict against the candidate.
  auto missing = run_cli(
      root_ / "ws", {"eval", "--no-gpu", "--no-store", "--json", "-p", "gemm", "--max-attempts", "1", plain.string()},
      std::chrono::seconds(300), {"PTXBENCH_TRITON_PYTHON=/nonexistent/python"});
  ASSERT_TRUE(missing.output.is_object()) << missing.process.out << missing.process.err;
  EXPECT_EQ(missing.output["verdict"], "infra_error");
  EXPECT_TRUE(has(missing.output["reason"].get<std::string>(), "triton_track/setup.sh")) << missing.output["reason"];
}

TEST_F(TritonCli, AFilesRunThroughTheAgentJudgesEachTurnAsTriton) {
  const fs::path files = root_ / "files" / "gemm" / "0";
  fs::create_directories(files);
  fs::copy_file(source_dir() / "triton_track" / "attacks" / "torch_matmul.py", files / "0.py");
  fs::copy_file(source_dir() / "problems" / "gemm" / "triton" / "tuned.py", files / "1.py");
  auto r = run_cli(root_ / "ws",
                   {"run", "--model", "files:" + (root_ / "files").string(), "--language", "triton", "--problems",
                    "gemm", "--trajectories", "1", "--turns", "2", "--no-gpu", "--run-name", "triton-run", "--json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_EQ(r.output["problems"][0]["states"], json({{"forbidden", 1}, {"not_run", 1}})) << r.output.dump();
  auto show = run_cli(root_ / "ws", {"runs", "show", "triton-run", "gemm/0", "--json"});
  ASSERT_EQ(show.process.exit_code, 0) << show.process.err;
  const json& t = show.output["turns"];
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]["state"], "forbidden");
  EXPECT_TRUE(has(t[0]["feedback"].get<std::string>(), "candidate.py:3: import of 'torch'")) << t[0]["feedback"];
  EXPECT_TRUE(has(t[0]["feedback"].get<std::string>(), "```python block")) << t[0]["feedback"];
  EXPECT_EQ(t[0]["extraction"]["language"], "python");
  // Rescoring judges the stored candidates as Triton again.
  auto rescore = run_cli(root_ / "ws", {"rescore", "triton-run", "--no-gpu"});
  EXPECT_EQ(rescore.process.exit_code, 0) << rescore.process.err;
  auto rescored = run_cli(root_ / "ws", {"runs", "show", "triton-run", "gemm/0", "--json"});
  ASSERT_EQ(rescored.output["turns"].size(), 2u) << rescored.process.out;
  EXPECT_EQ(rescored.output["turns"][0]["state"], "forbidden");
  EXPECT_EQ(rescored.output["turns"][1]["state"], "not_run");
  // Fixit does not take Triton runs yet: refused, saying so, not judged as CUDA.
  auto fixit =
      run_cli(root_ / "ws", {"fixit", "build", "--runs", "triton-run", "--recipe", "s0", "--local", "--no-gpu"});
  EXPECT_NE(fixit.process.exit_code, 0);
  EXPECT_TRUE(has(fixit.process.err, "triton run")) << fixit.process.err;
  // The prompt the model got was the Triton one.
  auto prompt = run_cli(root_ / "ws", {"prompt", "-p", "gemm", "--language", "triton"});
  EXPECT_TRUE(has(prompt.process.out, "def ptxbench_gemm(A, B, C, M, N, K, stream):")) << prompt.process.out;
}

// The GPU half's preparation on a machine without a GPU: a stand-in worker (fake_worker.py triton)
// says whether the job's "triton" block holds what the real worker needs, read through the worker's
// sandbox: the interpreter's library, the kernels of every shape, the launchers in the cache, the shim.
TEST_F(TritonCli, TheGpuStagesGetEveryShapesKernelsTheLaunchersAndTheShim) {
  const fs::path worker = stand_in_worker(root_ / "worker", "triton");
  auto r = run_cli(root_ / "ws",
                   {"eval", "--json", "--no-store", "--no-sanitize", "--no-probe", "--sequential", "--worker",
                    worker.string(), "-p", "gemm", (source_dir() / "problems/gemm/triton/tuned.py").string()},
                   std::chrono::seconds(600));
  ASSERT_TRUE(r.output.is_object()) << r.process.out << r.process.err;
  EXPECT_EQ(r.output["verdict"], "correct") << r.output["reason"].dump();
  const json* prep = nullptr;
  for (const auto& s : r.output["stages"])
    if (s["name"] == "triton_gpu_build") prep = &s;
  ASSERT_NE(prep, nullptr) << r.output["stages"].dump();
  EXPECT_EQ((*prep)["status"], "ok") << prep->dump();
  // Hidden, drawn, benchmark, sanitizer and probe shapes: more than the four the CPU build compiled.
  EXPECT_GT((*prep)["detail"]["shapes"].get<int>(), 4) << prep->dump();
  // The tuned gemm makes its A, B and C descriptors on the device: its copies are sized by the smallest box.
  EXPECT_EQ((*prep)["detail"]["device_tensor_maps"]["gemm_tma_kernel"]["min_box_bytes"], 16384) << prep->dump();
  // A GPU evaluation of a Triton candidate is no longer refused: without a GPU its stages are not run.
  auto plain = run_cli(root_ / "ws", {"eval", "--json", "--no-store", "-p", "gemm",
                                      (source_dir() / "problems/gemm/triton/plain.py").string()});
  ASSERT_TRUE(plain.output.is_object()) << plain.process.out << plain.process.err;
  EXPECT_TRUE(plain.output["verdict"] == "not_run" || plain.output["verdict"] == "correct") << plain.output["reason"];
}

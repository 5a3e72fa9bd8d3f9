#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"
#include "problems/flop_expr.h"
#include "problems/known_names.h"
#include "core/subprocess.h"
#include "problems/registry.h"
#include "support/temp_dir.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

// A problem folder in a temp dir with the given problem.toml text.
fs::path write_problem(const std::string& name, const std::string& toml) {
  static const ptxbench::test::TempDir root("ptxbench-spec");  // removed when the test process ends
  auto dir = root.path() / name;
  fs::create_directories(dir);
  std::ofstream(dir / "problem.toml") << toml;
  return dir;
}

const char* kValid = R"(
name = "toy"
title = "Toy"
entry = "ptxbench_toy"
baseline = "none"
dims = ["M", "K"]
flops = "2*M*K"
[constraints]
M = { multiple_of = 64, min = 64 }
K = { one_of = [16, 32] }
[tolerance]
Y = { rtol = 0.01, atol = 0.001, max_rel_l2 = 0.005 }
[targets.sm_90a]
groups = [["*GMMA"]]
[shapes]
benchmark = [{ M = 128, K = 32 }]
sanitize = { M = 64, K = 16 }
probe = { M = 64, K = 16 }
)";

// The toy's workload, as the worker's registry would list it.
const std::map<std::string, std::vector<std::string>> kToyWorkloads{{"toy", {"none"}}, {"gemm", {"cublaslt"}}};

std::string load_error(const std::string& toml) {
  auto dir = write_problem("toy", toml);
  try {
    load_problem(dir, kToyWorkloads);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

}  // namespace

TEST(ProblemSpec, GemmLoadsWithItsShapesTargetsAndTolerance) {
  auto p = ProblemRegistry(repo() / "problems").load("gemm");
  EXPECT_EQ(p.entry, "ptxbench_gemm");
  EXPECT_GE(p.benchmark_shapes.size(), 3u);
  bool has_4096 = false, has_8192 = false, has_non_square = false;
  for (const auto& s : p.benchmark_shapes) {
    has_4096 |= s.at("M") == 4096 && s.at("N") == 4096 && s.at("K") == 4096;
    has_8192 |= s.at("M") == 8192 && s.at("N") == 8192 && s.at("K") == 8192;
    has_non_square |= !(s.at("M") == s.at("N") && s.at("N") == s.at("K"));
  }
  EXPECT_TRUE(has_4096 && has_8192 && has_non_square);
  EXPECT_FALSE(p.hidden_shapes.empty());
  ASSERT_NE(p.targets_for("sm_90a"), nullptr);
  EXPECT_NE(p.targets_for("sm_100a"), nullptr);
  EXPECT_EQ(p.targets_for("sm_80"), nullptr);
  EXPECT_DOUBLE_EQ(p.flop_count({{"M", 4096}, {"N", 4096}, {"K", 4096}}), 2.0 * 4096 * 4096 * 4096);
  EXPECT_TRUE(fs::exists(p.interface_header()));
  EXPECT_TRUE(fs::exists(p.prompt_file()));
  for (const auto& s : p.hidden_shapes) EXPECT_EQ(p.check_shape(s), "");
}

TEST(ProblemSpec, HiddenShapesAreNotInThePrompt) {
  auto p = ProblemRegistry(repo() / "problems").load("gemm");
  std::ifstream in(p.prompt_file());
  std::string prompt((std::istreambuf_iterator<char>(in)), {});
  for (const auto& s : p.hidden_shapes) {
    std::string row =
        "| " + std::to_string(s.at("M")) + " | " + std::to_string(s.at("N")) + " | " + std::to_string(s.at("K")) + " |";
    EXPECT_EQ(prompt.find(row), std::string::npos) << row;
  }
}

TEST(ProblemSpec, ValidToyLoads) {
  EXPECT_EQ(load_error(kValid), "");
  auto p = load_problem(write_problem("toy", kValid), kToyWorkloads);
  EXPECT_EQ(p.check_shape({{"M", 96}, {"K", 16}}), "M=96 is not a multiple of 64");
  EXPECT_EQ(p.check_shape({{"M", 64}, {"K", 8}}), "K=8 is not an allowed value");
}

TEST(ProblemSpec, ErrorsNameTheFileAndTheField) {
  EXPECT_NE(load_error(replaced(kValid, "entry = \"ptxbench_toy\"\n", "")).find("'entry': missing"), std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "flops = \"2*M*K\"", "flops = \"2*M*Q\"")).find("unknown name 'Q'"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "benchmark = [{ M = 128, K = 32 }]", "benchmark = [{ M = 100, K = 32 }]"))
                .find("shapes.benchmark[0]': violates the constraints: M=100 is not a multiple of 64"),
            std::string::npos);
  EXPECT_NE(
      load_error(replaced(kValid, "sanitize = { M = 64, K = 16 }", "sanitize = { M = 64 }")).find("lacks dim 'K'"),
      std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "name = \"toy\"", "name = \"other\"")).find("folder is 'toy'"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "rtol = 0.01", "rtol = \"tight\""))
                .find("'tolerance.Y.rtol': must be a finite number"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "multiple_of = 64", "multiple_by = 64")).find("unknown constraint"),
            std::string::npos);
  auto syntax = load_error(replaced(kValid, "title = \"Toy\"", "title = \"Toy"));
  EXPECT_NE(syntax.find("problem.toml:3:"), std::string::npos) << syntax;  // file:line:column
}

// Issue 12: strict specs. Each error names the file, the line and the key path.
TEST(ProblemSpec, UnknownKeysAreRejectedWithFileLineAndKeyPath) {
  const std::string root = load_error(replaced(kValid, "title = \"Toy\"", "title = \"Toy\"\nshapez = 3"));
  EXPECT_NE(root.find("problem.toml:4: 'shapez': unknown key"), std::string::npos) << root;
  EXPECT_NE(load_error(replaced(kValid, "rtol = 0.01", "rtoll = 0.01")).find("'tolerance.Y.rtoll': unknown key"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "probe = { M = 64, K = 16 }", "probe = { M = 64, K = 16 }\nhiden = []"))
                .find("'shapes.hiden': unknown key"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "groups = [[\"*GMMA\"]]", "groups = [[\"*GMMA\"]]\nptxx = []"))
                .find("'targets.sm_90a.ptxx'"),
            std::string::npos);
  EXPECT_NE(load_error(std::string(kValid) + "[correctness]\nseed = 2\n").find("'correctness.seed': unknown key"),
            std::string::npos);
  EXPECT_NE(load_error(std::string(kValid) + "[shapes.random]\ncount = 1\nmax = { M = 64, K = 16 }\nmin = 1\n")
                .find("'shapes.random.min': unknown key"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "[targets.sm_90a]", "[targets.sm_91]")).find("'targets.sm_91'"),
            std::string::npos);
}

// Found by tests/fuzz/fuzz_problem_toml: a line that starts a key with a byte no key may start with
// (toml++ asserts there in a debug build) is a parse error naming the line, not a crash.
TEST(ProblemSpec, AKeyStartingWithAStrayByteIsAParseError) {
  for (const std::string& stray : {std::string("\x01"), std::string("\x7f"), std::string("=")}) {
    const std::string e = load_error(replaced(kValid, "title = \"Toy\"", "title = \"Toy\"\n[" + stray + "x]"));
    EXPECT_NE(e.find("problem.toml:4:"), std::string::npos) << e;
    EXPECT_NE(e.find("expected bare key starting character"), std::string::npos) << e;
  }
}

// Found by tests/fuzz/fuzz_problem_toml: a bare key followed by U+0300 made toml++ reach code it
// marks unreachable (undefined behaviour in a release build). Spec files must be ASCII: any other
// byte is an error naming the line and column, before the parser sees it.
TEST(ProblemSpec, ANonAsciiByteIsAnErrorNamingWhere) {
  std::string e = load_error("MEOax_M\xcc\x80");
  EXPECT_NE(e.find("problem.toml:1:8: byte 0xCC is not ASCII"), std::string::npos) << e;
  e = load_error(replaced(kValid, "title = \"Toy\"", "title = \"Toy \xc3\x97 2\""));
  EXPECT_NE(e.find("problem.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("is not ASCII"), std::string::npos) << e;
}

TEST(ProblemSpec, WorkloadAndBaselineNamesAreCheckedWithoutAGpu) {
  const std::string w = load_error(replaced(kValid, "baseline = \"none\"", "baseline = \"none\"\nworkload = \"toi\""));
  EXPECT_NE(w.find("'workload': 'toi' is not a workload of the worker (known: gemm, toy)"), std::string::npos) << w;
  const std::string b = load_error(replaced(kValid, "baseline = \"none\"", "baseline = \"cublas\""));
  EXPECT_NE(b.find("'baseline': 'cublas' is not a baseline the workload 'toy' implements (known: none)"),
            std::string::npos)
      << b;
  // The real registry (generated from problems/*/workload.cu at configure time).
  EXPECT_TRUE(known_workloads().count("gemm"));
  EXPECT_EQ(known_workloads().at("gemm"), std::vector<std::string>{"cublaslt"});
}

TEST(ProblemSpec, EveryDimIsBounded) {
  // M has a constraint, K gets the default bounds [1, 2^20] when it has none.
  const std::string no_k = replaced(kValid, "K = { one_of = [16, 32] }\n", "");
  EXPECT_EQ(load_error(no_k), "");
  EXPECT_NE(load_error(replaced(no_k, "benchmark = [{ M = 128, K = 32 }]", "benchmark = [{ M = 128, K = -32 }]"))
                .find("'shapes.benchmark[0]': violates the constraints: K=-32 outside [1, 1048576]"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(no_k, "benchmark = [{ M = 128, K = 32 }]",
                                "benchmark = [{ M = 128, K = 4600000000000000000 }]"))
                .find("K=4600000000000000000 outside [1, 1048576]"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(no_k, "benchmark = [{ M = 128, K = 32 }]", "benchmark = [{ M = 128, K = 4.6e18 }]"))
                .find("'shapes.benchmark[0].K': must be an integer"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "M = { multiple_of = 64, min = 64 }",
                                "M = { multiple_of = 64, min = 64, max = 9999999999 }"))
                .find("'constraints.M.max': must be between 1 and 1048576"),
            std::string::npos);
  EXPECT_NE(load_error(
                replaced(kValid, "M = { multiple_of = 64, min = 64 }", "M = { multiple_of = 64, min = 640, max = 64 }"))
                .find("min 640 is above max 64"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "K = { one_of = [16, 32] }", "K = { one_of = [16, -32] }"))
                .find("'constraints.K.one_of[1]'"),
            std::string::npos);
}

TEST(ProblemSpec, CountsAreBounded) {
  EXPECT_NE(load_error(std::string(kValid) + "[shapes.random]\ncount = -1\nmax = { M = 64, K = 16 }\n")
                .find("'shapes.random.count': must be between 0 and 64, got -1"),
            std::string::npos);
  EXPECT_NE(load_error(std::string(kValid) + "[correctness]\nseeds = 0\n")
                .find("'correctness.seeds': must be between 1 and 64"),
            std::string::npos);
  EXPECT_NE(
      load_error(replaced(kValid, "rtol = 0.01", "rtol = nan")).find("'tolerance.Y.rtol': must be a finite number"),
      std::string::npos);
}

TEST(ProblemRegistry, OneBadSpecSpoilsNoOther) {
  const auto root = fs::temp_directory_path() / ("ptxbench-registry-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "gemm");
  fs::copy(repo() / "problems" / "gemm", root / "gemm", fs::copy_options::recursive);
  fs::create_directories(root / "broken");
  std::ofstream(root / "broken" / "problem.toml") << replaced(kValid, "name = \"toy\"", "name = \"broken\"\nbogus = 1");
  const auto all = ProblemRegistry(root).load_all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "broken");
  EXPECT_FALSE(all[0].spec);
  EXPECT_NE(all[0].error.find("broken/problem.toml:3: 'bogus': unknown key"), std::string::npos) << all[0].error;
  EXPECT_TRUE(all[1].spec) << all[1].error;
  fs::remove_all(root);
}

TEST(ProblemRegistry, EveryProblemInTheRepositoryLoads) {
  for (const auto& l : ProblemRegistry(repo() / "problems").load_all()) EXPECT_TRUE(l.spec) << l.error;
}

// Issue 30: strict target execution is stated per problem: the work the targets must do.
TEST(ProblemSpec, TheTargetsWorkAndTheOperandBytesAreReadAndChecked) {
  const std::string with_work = replaced(
      replaced(kValid, "flops = \"2*M*K\"", "flops = \"2*M*K\"\noperand_bytes = \"2*M*K\""), "groups = [[\"*GMMA\"]]",
      "groups = [[\"*GMMA\"]]\nwork = { tensor_flop_share = 0.5, tma_byte_share = 0.25 }");
  ASSERT_EQ(load_error(with_work), "");
  const auto p = load_problem(write_problem("toy", with_work), kToyWorkloads);
  EXPECT_DOUBLE_EQ(p.targets_for("sm_90a")->work.tensor_flop_share, 0.5);
  EXPECT_DOUBLE_EQ(p.targets_for("sm_90a")->work.tma_byte_share, 0.25);
  EXPECT_DOUBLE_EQ(p.operand_byte_count({{"M", 128}, {"K", 32}}), 2.0 * 128 * 32);
  EXPECT_NE(
      load_error(replaced(with_work, "tensor_flop_share = 0.5", "tensor_flop_share = 1.5")).find("must lie in [0, 1]"),
      std::string::npos);
  EXPECT_NE(load_error(replaced(with_work, "tma_byte_share = 0.25", "tma_bytes = 0.25"))
                .find("'targets.sm_90a.work.tma_bytes': unknown key"),
            std::string::npos);
  EXPECT_NE(
      load_error(replaced(with_work, "operand_bytes = \"2*M*K\"\n", "")).find("needs the problem's operand_bytes"),
      std::string::npos);
  EXPECT_NE(load_error(replaced(with_work, "operand_bytes = \"2*M*K\"", "operand_bytes = \"2*M*Q\""))
                .find("unknown name 'Q'"),
            std::string::npos);
  // Issue 45: the allowlist's bounds, with their defaults and ranges.
  EXPECT_DOUBLE_EQ(p.targets_for("sm_90a")->work.max_target_flop_ratio, 1.1);
  EXPECT_DOUBLE_EQ(p.targets_for("sm_90a")->work.max_other_math_share, 0.1);
  EXPECT_DOUBLE_EQ(p.targets_for("sm_90a")->work.tma_load_share, 0);
  const std::string allowlist = replaced(with_work, "tensor_flop_share = 0.5,",
                                         "tensor_flop_share = 0.9, max_target_flop_ratio = 1.5, "
                                         "max_other_math_share = 0.05, tma_load_share = 0.8,");
  ASSERT_EQ(load_error(allowlist), "");
  const auto a = load_problem(write_problem("toy", allowlist), kToyWorkloads);
  EXPECT_DOUBLE_EQ(a.targets_for("sm_90a")->work.max_target_flop_ratio, 1.5);
  EXPECT_DOUBLE_EQ(a.targets_for("sm_90a")->work.max_other_math_share, 0.05);
  EXPECT_DOUBLE_EQ(a.targets_for("sm_90a")->work.tma_load_share, 0.8);
  EXPECT_NE(load_error(replaced(allowlist, "tma_load_share = 0.8", "tma_load_share = 2")).find("must lie in [0, 1]"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(allowlist, "max_target_flop_ratio = 1.5", "max_target_flop_ratio = 0.5"))
                .find("'targets.sm_90a.work.max_target_flop_ratio': must lie in [1, 10]"),
            std::string::npos);
  // Without [work], no share is required (the strict flag is then the loose one).
  const auto plain = load_problem(write_problem("toy", kValid), kToyWorkloads);
  EXPECT_DOUBLE_EQ(plain.targets_for("sm_90a")->work.tensor_flop_share, 0);
  EXPECT_DOUBLE_EQ(plain.operand_byte_count({{"M", 128}, {"K", 32}}), 0);
}

TEST(ProblemRegistry, EveryHopperProblemStatesTheWorkItsTargetsMustDo) {
  for (const auto& l : ProblemRegistry(repo() / "problems").load_all()) {
    ASSERT_TRUE(l.spec) << l.error;
    const ArchTargets* t = l.spec->targets_for("sm_90a");
    ASSERT_NE(t, nullptr) << l.name;
    EXPECT_GE(t->work.tensor_flop_share, 0.9) << l.name;
    EXPECT_GT(t->work.tma_byte_share, 0) << l.name;
    EXPECT_GE(t->work.tma_load_share, 0.5) << l.name;
    EXPECT_LE(t->work.max_other_math_share, 0.15) << l.name;
    EXPECT_GT(l.spec->operand_byte_count(l.spec->benchmark_shapes.front()), 0) << l.name;
  }
}

TEST(ProblemRegistry, UnknownNameListsKnownProblems) {
  ProblemRegistry reg(repo() / "problems");
  try {
    reg.load("nope");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gemm"), std::string::npos);
  }
  EXPECT_THROW(reg.load("../problems/gemm"), InputError);
  EXPECT_THROW(ProblemRegistry("/definitely/not/here"), InputError);
}

TEST(FlopExpr, ArithmeticAndErrors) {
  EXPECT_DOUBLE_EQ(eval_flop_expr("4*B*H*S*S*D / 2 + 1", {{"B", 2}, {"H", 3}, {"S", 4}, {"D", 5}}),
                   4 * 2 * 3 * 16 * 5 / 2.0 + 1);
  EXPECT_DOUBLE_EQ(eval_flop_expr("2.5*(M+N)", {{"M", 1}, {"N", 3}}), 10);
  EXPECT_THROW(eval_flop_expr("2*(M", {{"M", 1}}), InputError);
  EXPECT_THROW(eval_flop_expr("M/0", {{"M", 1}}), InputError);
  EXPECT_THROW(eval_flop_expr("M $ 2", {{"M", 1}}), InputError);
}

// The parent's list (generated at configure time) is the worker's own registry.
TEST(ProblemRegistry, KnownWorkloadsAreTheWorkersRegistry) {
  const auto r = run_process({(fs::path(PTXBENCH_BIN_DIR) / "ptxbench-worker").string(), "--list-workloads"});
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  const json worker = json::parse(r.out);
  json parent = json::object();
  for (const auto& [name, baselines] : known_workloads()) parent[name] = baselines;
  EXPECT_EQ(worker, parent);
}

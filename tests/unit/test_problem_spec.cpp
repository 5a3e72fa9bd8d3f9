#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"
#include "problems/flop_expr.h"
#include "problems/registry.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

// A problem folder in a temp dir with the given problem.toml text.
fs::path write_problem(const std::string& name, const std::string& toml) {
  auto dir = fs::temp_directory_path() / ("ptxbench-spec-" + std::to_string(getpid())) / name;
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

std::string load_error(const std::string& toml) {
  auto dir = write_problem("toy", toml);
  try {
    load_problem(dir);
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
    std::string row = "| " + std::to_string(s.at("M")) + " | " + std::to_string(s.at("N")) + " | " + std::to_string(s.at("K")) + " |";
    EXPECT_EQ(prompt.find(row), std::string::npos) << row;
  }
}

TEST(ProblemSpec, ValidToyLoads) {
  EXPECT_EQ(load_error(kValid), "");
  auto p = load_problem(write_problem("toy", kValid));
  EXPECT_EQ(p.check_shape({{"M", 96}, {"K", 16}}), "M=96 is not a multiple of 64");
  EXPECT_EQ(p.check_shape({{"M", 64}, {"K", 8}}), "K=8 is not an allowed value");
}

TEST(ProblemSpec, ErrorsNameTheFileAndTheField) {
  EXPECT_NE(load_error(replaced(kValid, "entry = \"ptxbench_toy\"\n", "")).find("'entry': missing"), std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "flops = \"2*M*K\"", "flops = \"2*M*Q\"")).find("unknown name 'Q'"), std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "benchmark = [{ M = 128, K = 32 }]", "benchmark = [{ M = 100, K = 32 }]"))
                .find("shapes.benchmark[0]': violates the constraints: M=100 is not a multiple of 64"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "sanitize = { M = 64, K = 16 }", "sanitize = { M = 64 }")).find("lacks dim 'K'"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "name = \"toy\"", "name = \"other\"")).find("folder is 'toy'"), std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "rtol = 0.01", "rtol = \"tight\"")).find("'tolerance.Y.rtol': must be a number"),
            std::string::npos);
  EXPECT_NE(load_error(replaced(kValid, "multiple_of = 64", "multiple_by = 64")).find("unknown constraint"), std::string::npos);
  auto syntax = load_error(replaced(kValid, "title = \"Toy\"", "title = \"Toy"));
  EXPECT_NE(syntax.find("problem.toml:3:"), std::string::npos) << syntax;  // file:line:column
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
  EXPECT_DOUBLE_EQ(eval_flop_expr("4*B*H*S*S*D / 2 + 1", {{"B", 2}, {"H", 3}, {"S", 4}, {"D", 5}}), 4 * 2 * 3 * 16 * 5 / 2.0 + 1);
  EXPECT_DOUBLE_EQ(eval_flop_expr("2.5*(M+N)", {{"M", 1}, {"N", 3}}), 10);
  EXPECT_THROW(eval_flop_expr("2*(M", {{"M", 1}}), InputError);
  EXPECT_THROW(eval_flop_expr("M/0", {{"M", 1}}), InputError);
  EXPECT_THROW(eval_flop_expr("M $ 2", {{"M", 1}}), InputError);
}

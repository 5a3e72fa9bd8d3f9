// Prompts are right for every arch: build line, target instructions and shapes come from the
// flags, the arch table and problem.toml, never from hand-copied text.
#include <gtest/gtest.h>

#include <fstream>

#include "agent/problem_prompt.h"
#include "agent/prompt_builder.h"
#include "core/error.h"
#include "judge/toolchain_info.h"
#include "problems/registry.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {
std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }
bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

void expect_prompt_for(const std::string& arch, const std::string& gencode, const std::vector<std::string>& must,
                       const std::vector<std::string>& must_not) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& name : reg.names()) {
    SCOPED_TRACE(name + " " + arch);
    const ProblemSpec p = reg.load(name);
    const std::string text = render_problem_prompt(p, arch);
    std::string flags;
    for (const auto& f : candidate_build_flags(arch)) flags += (flags.empty() ? "" : " ") + f;
    EXPECT_TRUE(has(text, "`nvcc " + flags)) << "the exact build line";
    EXPECT_TRUE(has(text, gencode));
    EXPECT_FALSE(has(text, "{{")) << "every placeholder filled";
    for (const auto& m : must) EXPECT_TRUE(has(text, m)) << m;
    for (const auto& m : must_not) EXPECT_FALSE(has(text, m)) << m;
    for (const auto& ptx : p.targets_for(arch)->ptx) EXPECT_TRUE(has(text, "`" + ptx + "`")) << ptx;
    // The problem's own target groups (the fp8 GEMM names its fp8 family, QGMMA / UTCQMMA).
    for (const auto& group : p.targets_for(arch)->groups)
      for (const auto& glob : group) EXPECT_TRUE(has(text, "`" + glob + "`")) << glob;
    EXPECT_TRUE(has(text, benchmark_shapes_table(p)));
    for (const auto& s : p.benchmark_shapes) {
      std::string row = "|";
      for (const auto& d : p.dims) row += " " + std::to_string(s.at(d)) + " |";
      EXPECT_TRUE(has(text, row)) << row;
    }
    for (const auto& s : p.hidden_shapes) {
      std::string row = "|";
      for (const auto& d : p.dims) row += " " + std::to_string(s.at(d)) + " |";
      EXPECT_FALSE(has(text, row)) << "hidden shape shown: " << row;
    }
  }
}
}  // namespace

TEST(PromptPerArch, HopperPromptSaysSm90aAndWgmma) {
  expect_prompt_for("sm_90a", "-gencode=arch=compute_90a,code=sm_90a",
                    {"compiled for `sm_90a` only", "GMMA`", "one of `UTMALDG`, `UTMASTG` or `UTMAREDG`"},
                    {"compute_100a", "tcgen05"});
}

TEST(PromptPerArch, BlackwellPromptSaysSm100aAndTcgen05NotWgmma) {
  expect_prompt_for("sm_100a", "-gencode=arch=compute_100a,code=sm_100a",
                    {"compiled for `sm_100a` only", "`UTC", "one of `LDTM` or `STTM`", "`wgmma` is Hopper-only"},
                    {"compute_90a", "`wgmma.mma_async`"});
}

TEST(PromptPerArch, WholePromptPutsKnowledgeInTheSystemTextAndTheProblemInTheUserText) {
  ProblemRegistry reg(repo() / "problems");
  PromptOptions o;
  o.arch = "sm_100a";
  o.knowledge_root = repo() / "knowledge";
  const auto parts = build_prompt_parts(reg.load("gemm"), o);
  EXPECT_TRUE(has(parts.system, "Architecture knowledge: NVIDIA Blackwell"));
  EXPECT_TRUE(has(parts.system, "tcgen05"));
  EXPECT_FALSE(has(parts.system, "ptxbench_gemm("));
  EXPECT_TRUE(has(parts.problem, "ptxbench_gemm("));
  EXPECT_TRUE(has(parts.problem, "## Reply format"));
  EXPECT_EQ(build_prompt(reg.load("gemm"), o), parts.system + "\n---\n\n" + parts.problem);
}

TEST(PromptPerArch, UnknownPlaceholderNamesTheFileAndLine) {
  test::TempDir d;
  const auto dir = d.path() / "gemm";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(repo() / "problems/gemm/problem.toml", dir / "problem.toml");
  std::ofstream(dir / "prompt.md") << "line one\n{{benchmark_shapes}}\nand {{shapez}}\n";
  const ProblemSpec p = load_problem(dir);
  try {
    render_problem_prompt(p, "sm_90a");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "prompt.md:3: unknown placeholder {{shapez}}")) << e.what();
  }
}

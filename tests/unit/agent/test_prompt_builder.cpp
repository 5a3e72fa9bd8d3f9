#include <gtest/gtest.h>

#include "agent/prompt_builder.h"
#include "core/error.h"
#include "problems/registry.h"

using namespace ptxbench;

namespace {
std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }
std::string prompt(const std::string& arch, const std::string& components) {
  PromptOptions o;
  o.arch = arch;
  o.components = parse_components(components);
  o.knowledge_root = repo() / "knowledge";
  return build_prompt(ProblemRegistry(repo() / "problems").load("gemm"), o);
}
bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }
}  // namespace

TEST(PromptBuilder, EachKnowledgeComponentIsIncludedOnlyWhenAsked) {
  for (const std::string arch : {"sm_90a", "sm_100a"}) {
    auto none = prompt(arch, "none");
    EXPECT_FALSE(has(none, "Architecture knowledge")) << arch;
    EXPECT_TRUE(has(none, "ptxbench_gemm")) << arch;  // the problem itself is always there
    auto params = prompt(arch, "params");
    EXPECT_TRUE(has(params, "## Architecture parameters"));
    EXPECT_FALSE(has(params, "## PTX template functions"));
    EXPECT_FALSE(has(params, "## Architecture contract"));
    auto all = prompt(arch, "all");
    EXPECT_TRUE(has(all, "## Architecture parameters") && has(all, "## PTX template functions") &&
                has(all, "## Architecture contract"));
    EXPECT_TRUE(has(all, "__device__")) << "the template functions' code is in the prompt";
    EXPECT_GT(all.size(), params.size() + 10000);
  }
  EXPECT_TRUE(has(prompt("sm_90a", "ptx"), "wgmma"));
  EXPECT_TRUE(has(prompt("sm_100a", "ptx"), "tcgen05"));
}

TEST(PromptBuilder, BadComponentIsNamed) {
  try {
    parse_components("params,wisdom");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "wisdom"));
  }
}

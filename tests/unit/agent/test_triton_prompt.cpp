// The Triton prompt of every problem: derived from its prompt.md (or its own triton/prompt.md),
// with the Python signature, the arguments and the Triton rules, and nothing of the CUDA ABI left.
#include <gtest/gtest.h>

#include <fstream>

#include "agent/problem_prompt.h"
#include "agent/prompt_builder.h"
#include "core/error.h"
#include "problems/registry.h"
#include "problems/triton_abi.h"
#include "support/temp_dir.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {
fs::path repo() { return PTXBENCH_SOURCE_DIR; }
bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }
}  // namespace

TEST(TritonPrompt, EveryProblemRendersWithoutCudaAbiForBothArches) {
  ProblemRegistry registry(repo() / "problems");
  for (const auto& name : registry.names()) {
    const ProblemSpec p = registry.load(name);
    const auto abi = load_triton_abi(p);
    ASSERT_TRUE(abi) << name;
    for (const std::string arch : {"sm_90a", "sm_100a"}) {
      SCOPED_TRACE(name + " " + arch);
      const std::string text = render_problem_prompt(p, arch, Language::triton);
      EXPECT_TRUE(has(text, "def " + abi->signature(p.entry) + ":"));
      EXPECT_TRUE(has(text, "Write one Python file with Triton kernels"));
      EXPECT_TRUE(has(text, "Import only `triton`"));
      EXPECT_TRUE(has(text, "`stream`: the CUDA stream"));
      EXPECT_TRUE(has(text, "compiled for `" + arch + "`"));
      for (const char* cuda :
           {"cudaMalloc", "cudaError_t", "extern \"C\"", "nvcc", "dlopen", "{{", "Write a CUDA C++ file"})
        EXPECT_FALSE(has(text, cuda)) << "left over: " << cuda;
      for (const auto& a : abi->arguments) EXPECT_TRUE(has(text, "- `" + a.name + "`: ")) << a.name;
    }
  }
}

TEST(TritonPrompt, KnowledgeComponentsAreThePacksTritonFiles) {
  const ProblemSpec p = ProblemRegistry(repo() / "problems").load("gemm");
  PromptOptions o;
  o.language = Language::triton;
  o.knowledge_root = repo() / "knowledge";
  const PromptParts all = build_prompt_parts(p, o);
  EXPECT_TRUE(has(all.system, "Triton on Hopper"));
  EXPECT_TRUE(has(all.system, "Triton candidate contract"));
  EXPECT_TRUE(has(all.system, "Architecture parameters"));
  EXPECT_FALSE(has(all.system, "ptx.cuh"));
  EXPECT_TRUE(has(all.problem, "```python code block"));
  o.components = parse_components("params");
  const PromptParts params = build_prompt_parts(p, o);
  EXPECT_FALSE(has(params.system, "Triton on Hopper"));
  EXPECT_FALSE(has(params.system, "Triton candidate contract"));
  o.arch = "sm_100a";
  o.components = parse_components("all");
  EXPECT_TRUE(has(build_prompt_parts(p, o).system, "Triton on Blackwell"));
}

TEST(TritonPrompt, AProblemsOwnTritonPromptWinsAndAnUnderivablePromptIsAnInputError) {
  test::TempDir dir("ptxbench-triton-prompt");
  ProblemSpec p = ProblemRegistry(repo() / "problems").load("gemm");
  fs::copy(p.dir, dir.path() / "gemm", fs::copy_options::recursive);
  p.dir = dir.path() / "gemm";
  std::ofstream(p.dir / "triton" / "prompt.md") << "Own: {{triton_signature}}\n{{benchmark_shapes}}";
  const std::string own = render_problem_prompt(p, "sm_90a", Language::triton);
  EXPECT_TRUE(has(own, "Own: ```python\ndef ptxbench_gemm(A, B, C, M, N, K, stream):"));
  std::ofstream(p.dir / "triton" / "prompt.md") << "{{triton_nonsense}}";
  EXPECT_THROW(render_problem_prompt(p, "sm_90a", Language::triton), InputError);
  fs::remove(p.dir / "triton" / "prompt.md");
  std::ofstream(p.dir / "prompt.md") << "# A prompt with no C signature block\n\nRules:\n- none\n";
  try {
    render_problem_prompt(p, "sm_90a", Language::triton);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "signature block")) << e.what();
    EXPECT_TRUE(has(e.what(), "triton/prompt.md")) << e.what();
  }
}

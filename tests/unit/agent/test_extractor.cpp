// The code extractor's rule, case by case (src/agent/extractor.h states it).
#include <gtest/gtest.h>

#include "agent/extractor.h"

using namespace ptxbench;

namespace {
const std::string kEntry = "ptxbench_gemm";
const std::string kFull =
    "#include \"interface.h\"\nextern \"C\" cudaError_t ptxbench_gemm(const void* A) {\n  return cudaSuccess;\n}\n";
}  // namespace

TEST(Extractor, NoCodeBlockIsNoCode) {
  auto x = extract_code("I cannot write this kernel today.", kEntry);
  EXPECT_FALSE(x.found);
  EXPECT_EQ(x.blocks, 0);
  EXPECT_EQ(x.rule, "no code block in the reply");
  EXPECT_TRUE(x.code.empty());
}

TEST(Extractor, OnlyOtherLanguagesIsNoCode) {
  auto x = extract_code("```python\nprint(1)\n```\n```bash\nnvcc x.cu\n```\n", kEntry);
  EXPECT_FALSE(x.found);
  EXPECT_EQ(x.blocks, 2);
  EXPECT_EQ(x.eligible_blocks, 0);
  EXPECT_NE(x.rule.find("other languages"), std::string::npos) << x.rule;
}

TEST(Extractor, SingleCudaBlock) {
  auto x = extract_code("Here:\n```cuda\n" + kFull + "```\nDone.", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.code, kFull);
  EXPECT_EQ(x.language, "cuda");
  EXPECT_FALSE(x.unterminated);
  EXPECT_EQ(x.rule, "the only C/C++/CUDA block");
}

TEST(Extractor, LastBlockNamingTheEntryPointWins) {
  // The interface repeated first, a helper snippet last: the full file (last block naming the entry) is taken.
  const std::string reply =
      "```c\nextern \"C\" cudaError_t ptxbench_gemm(const void*);\n```\nThe file:\n```cpp\n" + kFull +
      "```\nAnd a helper you could add:\n```cuda\n__device__ int twice(int x) { return 2 * x; }\n```\n";
  auto x = extract_code(reply, kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.chosen, 1);
  EXPECT_EQ(x.code, kFull);
  EXPECT_EQ(x.blocks, 3);
  EXPECT_EQ(x.rule, "the last C/C++/CUDA block naming ptxbench_gemm");
}

TEST(Extractor, EntryMustBeNamedAsAFunction) {
  // "ptxbench_gemm_helper(" and a mention in a comment without "(" do not count.
  const std::string a = "```cuda\n// calls ptxbench_gemm later\nint ptxbench_gemm_helper(int);\n```\n";
  const std::string b = "```cuda\nint big_block_of_code() { return 1; }\nint more() { return 2; }\n```\n";
  auto x = extract_code(a + b, kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.chosen, 1) << "no block names the entry: the largest wins";
  EXPECT_NE(x.rule.find("largest"), std::string::npos);
}

TEST(Extractor, LargestBlockOnTieTakesTheLater) {
  auto x = extract_code("```cuda\nint a();\n```\n```cuda\nint b();\n```\n", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.chosen, 1);
  EXPECT_EQ(x.code, "int b();\n");
}

TEST(Extractor, UnterminatedFenceRunsToTheEndAndIsFlagged) {
  auto x = extract_code("Start:\n```cuda\n" + kFull + "__global__ void k() {\n", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_TRUE(x.unterminated);
  EXPECT_EQ(x.code, kFull + "__global__ void k() {\n");
  auto y = extract_code("```cuda\nint x;\n", kEntry);  // ending in a newline: no extra blank line
  EXPECT_EQ(y.code, "int x;\n");
}

TEST(Extractor, CrlfIsNormalizedAndFlagged) {
  auto x = extract_code("```cuda\r\nint a;\r\nint b;\r\n```\r\n", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_TRUE(x.crlf);
  EXPECT_EQ(x.code, "int a;\nint b;\n");
  EXPECT_FALSE(extract_code("```cuda\nint a;\n```\n", kEntry).crlf);
}

TEST(Extractor, LanguageTagsAreCaseInsensitiveAndUntaggedCounts) {
  EXPECT_EQ(extract_code("```CUDA\nint a;\n```", kEntry).language, "cuda");
  EXPECT_EQ(extract_code("```C++ title=k.cu\nint a;\n```", kEntry).language, "c++");
  auto untagged = extract_code("```\nint a;\n```", kEntry);
  EXPECT_TRUE(untagged.found);
  EXPECT_EQ(untagged.language, "");
  EXPECT_FALSE(extract_code("```ptx\nmov.u32 %r1, 1;\n```", kEntry).found);
}

TEST(Extractor, LongerFenceKeepsInnerBackticksAndTildesWork) {
  auto x = extract_code("````cuda\n// ``` is not a fence here\nint a;\n````\n", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.code, "// ``` is not a fence here\nint a;\n");
  auto t = extract_code("~~~cuda\nint t;\n~~~\n", kEntry);
  ASSERT_TRUE(t.found);
  EXPECT_EQ(t.code, "int t;\n");
}

TEST(Extractor, InlineTripleBackticksInProseAreNoFence) {
  auto x = extract_code("Use a ```cuda``` block, like this one:\n```cuda\nint a;\n```\n", kEntry);
  ASSERT_TRUE(x.found);
  EXPECT_EQ(x.blocks, 1);
  EXPECT_EQ(x.code, "int a;\n");
}

TEST(Extractor, EmptyBlocksAreSkipped) {
  auto x = extract_code("```cuda\n\n```\n", kEntry);
  EXPECT_FALSE(x.found);
  EXPECT_EQ(x.blocks, 1);
}

TEST(Extractor, RecordsTheRuleAndVersion) {
  const json j = extract_code("```cuda\n" + kFull + "```", kEntry).to_json();
  EXPECT_EQ(j["version"], kExtractorVersion);
  EXPECT_EQ(j["found"], true);
  EXPECT_EQ(j["bytes"], kFull.size());
}

// A Triton reply: python-tagged (or untagged) blocks are the candidates, CUDA blocks never are.
TEST(Extractor, TritonTakesPythonBlocksAndNeverCuda) {
  const std::string reply =
      "Sketch in CUDA first:\n```cuda\nextern \"C\" int ptxbench_gemm(int x) { return x; }\n```\n"
      "Helper:\n```python\nimport triton\nBLOCK = 128\n```\n"
      "The candidate:\n```python\nimport triton\n\ndef ptxbench_gemm(A, B, C, M, N, K, stream):\n    pass\n```\n"
      "```bash\npython run.py\n```\n";
  const ExtractedCode py = extract_code(reply, "ptxbench_gemm", Language::triton);
  ASSERT_TRUE(py.found);
  EXPECT_EQ(py.chosen, 2);
  EXPECT_EQ(py.eligible_blocks, 2);
  EXPECT_EQ(py.language, "python");
  EXPECT_NE(py.code.find("def ptxbench_gemm(A, B, C"), std::string::npos);
  EXPECT_EQ(py.rule, "the last Python block naming ptxbench_gemm");
  // The same reply judged as CUDA takes the CUDA block.
  const ExtractedCode cu = extract_code(reply, "ptxbench_gemm");
  ASSERT_TRUE(cu.found);
  EXPECT_EQ(cu.chosen, 0);
  // Only CUDA in a Triton reply: no code, saying so.
  const ExtractedCode none = extract_code("```cuda\nint x;\n```\n", "ptxbench_gemm", Language::triton);
  EXPECT_FALSE(none.found);
  EXPECT_NE(none.rule.find("no Python code block"), std::string::npos) << none.rule;
  EXPECT_TRUE(extract_code("```py\ndef ptxbench_gemm():\n    pass\n```\n", "ptxbench_gemm", Language::triton).found);
}

// The extended suite's four problems (gqa_fwd, gqa_bwd, gemm_fp8, gemm_bias_gelu): their specs,
// shapes, targets, interfaces and prompts.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "agent/problem_prompt.h"
#include "problems/registry.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}
bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

struct Expected {
  std::string name, entry, baseline;
  std::vector<std::string> dims, outputs;
  std::string sm90_mma, sm100_mma;  // the tensor-core group of each arch
  Shape shape;
  double flops;  // at `shape`
};

Shape gqa(long long b, long long hkv, long long g, long long s, long long d) {
  return {{"B", b}, {"Hkv", hkv}, {"G", g}, {"S", s}, {"D", d}};
}
Shape mnk(long long m, long long n, long long k) { return {{"M", m}, {"N", n}, {"K", k}}; }

const std::vector<Expected> kProblems = {
    {"gqa_fwd",
     "ptxbench_gqa_fwd",
     "cudnn",
     {"B", "Hkv", "G", "S", "D"},
     {"LSE", "O"},
     "*GMMA",
     "UTC*",
     gqa(2, 8, 4, 4096, 128),
     2.0 * 2 * 32 * 4096.0 * 4096 * 128},
    {"gqa_bwd",
     "ptxbench_gqa_bwd",
     "cudnn",
     {"B", "Hkv", "G", "S", "D"},
     {"dK", "dQ", "dV"},
     "*GMMA",
     "UTC*",
     gqa(2, 8, 4, 4096, 128),
     5.0 * 2 * 32 * 4096.0 * 4096 * 128},
    {"gemm_fp8",
     "ptxbench_gemm_fp8",
     "cublaslt",
     {"M", "N", "K"},
     {"C"},
     "QGMMA",
     "UTCQMMA",
     mnk(4096, 4096, 4096),
     2.0 * 4096 * 4096 * 4096},
    {"gemm_bias_gelu",
     "ptxbench_gemm_bias_gelu",
     "cublaslt",
     {"M", "N", "K"},
     {"C"},
     "*GMMA",
     "UTC*",
     mnk(4096, 16384, 4096),
     2.0 * 4096 * 16384 * 4096},
};

}  // namespace

TEST(ExtendedSpecs, LoadWithEntryBaselineDimsFlopsOutputsAndFiles) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& x : kProblems) {
    SCOPED_TRACE(x.name);
    const auto p = reg.load(x.name);
    EXPECT_EQ(p.entry, x.entry);
    EXPECT_EQ(p.workload, x.name);
    EXPECT_EQ(p.baseline, x.baseline);
    EXPECT_EQ(p.dims, x.dims);
    EXPECT_DOUBLE_EQ(p.flop_count(x.shape), x.flops);
    std::vector<std::string> outputs;
    for (const auto& [name, t] : p.tolerances) outputs.push_back(name);
    EXPECT_EQ(outputs, x.outputs);
    for (const auto& f : {"interface.h", "prompt.md", "workload.cu", "reference/naive.cu", "reference/wgmma_tma.cu"})
      EXPECT_TRUE(fs::exists(p.dir / f)) << f;
    EXPECT_TRUE(has(read(p.interface_header()), x.entry + "("));
    EXPECT_EQ(p.check_shape(x.shape), "");
    EXPECT_GE(p.correctness_seeds, 2);
    EXPECT_GT(p.random_hidden_shapes, 0);
    // Tolerances say how they were (or are to be) calibrated.
    const std::string toml = read(p.dir / "problem.toml");
    EXPECT_TRUE(has(toml, "calibrated") || has(toml, "Calibrated")) << "a tolerance comment on calibration";
  }
}

TEST(ExtendedSpecs, TargetsNameTheTensorCoreFamilyOfEachArch) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& x : kProblems) {
    SCOPED_TRACE(x.name);
    const auto p = reg.load(x.name);
    const auto* hopper = p.targets_for("sm_90a");
    const auto* blackwell = p.targets_for("sm_100a");
    ASSERT_NE(hopper, nullptr);
    ASSERT_NE(blackwell, nullptr);
    EXPECT_EQ(hopper->groups.at(0), std::vector<std::string>{x.sm90_mma});
    EXPECT_EQ(hopper->groups.at(1), (std::vector<std::string>{"UTMALDG", "UTMASTG", "UTMAREDG"}));
    EXPECT_EQ(blackwell->groups.at(0), std::vector<std::string>{x.sm100_mma});
    EXPECT_EQ(blackwell->groups.at(1), (std::vector<std::string>{"LDTM", "STTM"}));
  }
}

// Every group size is allowed: the hidden shapes hold plain MHA (G=1), multi-query (Hkv=1), group
// sizes that are not powers of two (a shift-based head mapping fails there), S an odd multiple of
// 128 and both head sizes; the listed shapes are current LLMs' (Hq=32, Hkv=8, D=128 at 4K and 8K).
TEST(ExtendedSpecs, GqaShapesCoverMhaMqaAndGroupsThatAreNotPowersOfTwo) {
  ProblemRegistry reg(repo() / "problems");
  for (const std::string name : {"gqa_fwd", "gqa_bwd"}) {
    SCOPED_TRACE(name);
    const auto p = reg.load(name);
    EXPECT_EQ(p.workload_options.dump(), json({{"causal", true}}).dump());
    auto listed = [&](const Shape& s) {
      return std::find(p.benchmark_shapes.begin(), p.benchmark_shapes.end(), s) != p.benchmark_shapes.end();
    };
    EXPECT_TRUE(listed(gqa(2, 8, 4, 4096, 128)));
    EXPECT_TRUE(listed(gqa(1, 8, 4, 8192, 128)));
    bool mha = false, mqa = false, odd_group = false, odd_s = false, d64 = false, d128 = false;
    for (const auto& s : p.hidden_shapes) {
      EXPECT_EQ(p.check_shape(s), "");
      mha |= s.at("G") == 1;
      mqa |= s.at("Hkv") == 1 && s.at("G") > 1;
      odd_group |= (s.at("G") & (s.at("G") - 1)) != 0;
      odd_s |= s.at("S") % 256 != 0;
      d64 |= s.at("D") == 64;
      d128 |= s.at("D") == 128;
    }
    EXPECT_TRUE(mha && mqa && odd_group && odd_s && d64 && d128);
    for (const auto& s : p.benchmark_shapes)
      EXPECT_EQ(s.at("G") & (s.at("G") - 1), 0) << "listed groups are powers of two";
    EXPECT_NE(p.check_shape(gqa(1, 1, 17, 128, 64)), "") << "G above 16";
    EXPECT_NE(p.check_shape(gqa(1, 1, 2, 192, 64)), "") << "S not a multiple of 128";
  }
}

TEST(ExtendedSpecs, GemmShapesHideKAndNTailsTheListedOnesNeverShow) {
  ProblemRegistry reg(repo() / "problems");
  const auto fp8 = reg.load("gemm_fp8");
  bool k_tail = false;
  for (const auto& s : fp8.benchmark_shapes) EXPECT_EQ(s.at("K") % 512, 0);
  for (const auto& s : fp8.hidden_shapes) k_tail |= s.at("K") % 512 != 0;
  EXPECT_TRUE(k_tail) << "a hidden K that is not a multiple of 512";
  EXPECT_NE(fp8.check_shape(mnk(128, 128, 64)), "") << "fp8 K is a multiple of 128";
  const auto gelu = reg.load("gemm_bias_gelu");
  EXPECT_EQ(gelu.check_shape(mnk(128, 128, 64)), "");
  // The tolerance's absolute part is small enough to catch the erf GELU (about 4e-4 off at x = -3).
  EXPECT_LE(gelu.tolerances.at("C").atol, 5e-4);
}

TEST(ExtendedSpecs, PromptsStateTheAbiTheMathAndHideTheHiddenShapes) {
  ProblemRegistry reg(repo() / "problems");
  const std::map<std::string, std::vector<std::string>> must{
      {"gqa_fwd", {"int Hq, int Hkv", "h / G", "causal", "not only a power of two"}},
      {"gqa_bwd", {"int Hq, int Hkv", "summed over the `G` query heads", "4*B*Hq*S*(D+1)"}},
      {"gemm_fp8", {"e4m3", "scale_a", "device pointers", "multiple of 128"}},
      {"gemm_bias_gelu", {"tanh approximation", "0.044715", "not the exact", "tanh.approx.f32"}},
  };
  for (const auto& x : kProblems) {
    for (const std::string arch : {"sm_90a", "sm_100a"}) {
      SCOPED_TRACE(x.name + " " + arch);
      const auto p = reg.load(x.name);
      const std::string prompt = render_problem_prompt(p, arch);
      EXPECT_TRUE(has(prompt, x.entry + "("));
      EXPECT_TRUE(has(prompt, "`" + (arch == "sm_90a" ? x.sm90_mma : x.sm100_mma) + "`"));
      for (const auto& m : must.at(x.name)) EXPECT_TRUE(has(prompt, m)) << m;
      for (const auto& s : p.hidden_shapes) {
        std::string row = "|";
        for (const auto& d : p.dims) row += " " + std::to_string(s.at(d)) + " |";
        EXPECT_FALSE(has(prompt, row)) << "hidden shape shown: " << row;
      }
    }
  }
}

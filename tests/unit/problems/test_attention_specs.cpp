// The four attention problems' specs, and [workload_options] in the loader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"
#include "agent/problem_prompt.h"
#include "problems/registry.h"
#include "support/temp_dir.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

struct Expected {
  std::string name, entry, workload;
  bool causal;
  double flops_per_bhssd;
  std::vector<std::string> outputs;
};

const std::vector<Expected> kAttention = {
    {"mha_fwd", "ptxbench_mha_fwd", "mha_fwd", false, 4.0, {"LSE", "O"}},
    {"mha_fwd_causal", "ptxbench_mha_fwd", "mha_fwd", true, 2.0, {"LSE", "O"}},
    {"mha_bwd", "ptxbench_mha_bwd", "mha_bwd", false, 10.0, {"dK", "dQ", "dV"}},
    {"mha_bwd_causal", "ptxbench_mha_bwd", "mha_bwd", true, 5.0, {"dK", "dQ", "dV"}},
};

Shape bhsd(long long b, long long h, long long s, long long d) { return {{"B", b}, {"H", h}, {"S", s}, {"D", d}}; }

}  // namespace

TEST(AttentionSpecs, LoadWithEntryWorkloadCausalFlagAndFlops) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& x : kAttention) {
    SCOPED_TRACE(x.name);
    auto p = reg.load(x.name);
    EXPECT_EQ(p.entry, x.entry);
    EXPECT_EQ(p.workload, x.workload);
    EXPECT_EQ(p.baseline, "cudnn");
    EXPECT_EQ(p.workload_options.dump(), json({{"causal", x.causal}}).dump());
    EXPECT_EQ(p.to_json()["workload_options"]["causal"], x.causal);
    EXPECT_EQ(p.dims, (std::vector<std::string>{"B", "H", "S", "D"}));
    EXPECT_DOUBLE_EQ(p.flop_count(bhsd(4, 16, 4096, 128)), x.flops_per_bhssd * 4 * 16 * 4096.0 * 4096 * 128);
    std::vector<std::string> outputs;
    for (const auto& [name, t] : p.tolerances) outputs.push_back(name);
    EXPECT_EQ(outputs, x.outputs);
    ASSERT_NE(p.targets_for("sm_90a"), nullptr);
    EXPECT_TRUE(fs::exists(p.interface_header()));
    EXPECT_NE(read(p.interface_header()).find(x.entry + "("), std::string::npos);
    EXPECT_TRUE(fs::exists(p.dir / "reference" / "naive.cu"));
  }
}

TEST(AttentionSpecs, ConstraintsAreDIn64Or128AndSMultipleOf128) {
  auto p = ProblemRegistry(repo() / "problems").load("mha_fwd");
  EXPECT_EQ(p.check_shape(bhsd(1, 1, 128, 64)), "");
  EXPECT_EQ(p.check_shape(bhsd(2, 16, 8192, 128)), "");
  EXPECT_EQ(p.check_shape(bhsd(1, 1, 128, 96)), "D=96 is not an allowed value");
  EXPECT_EQ(p.check_shape(bhsd(1, 1, 192, 64)), "S=192 is not a multiple of 128");
  EXPECT_NE(p.check_shape(bhsd(0, 1, 128, 64)), "");
}

TEST(AttentionSpecs, ShapesCoverTheBenchmarkAndTheEdges) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& x : kAttention) {
    SCOPED_TRACE(x.name);
    auto p = reg.load(x.name);
    auto has = [](const std::vector<Shape>& v, const Shape& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
    EXPECT_TRUE(has(p.benchmark_shapes, bhsd(4, 16, 4096, 128)));
    EXPECT_TRUE(has(p.benchmark_shapes, bhsd(2, 16, 8192, 128)));
    bool d64 = false, s128 = false, single = false, odd_s = false;
    for (const auto& s : p.benchmark_shapes) d64 |= s.at("D") == 64;
    for (const auto& s : p.hidden_shapes) {
      EXPECT_EQ(p.check_shape(s), "");
      s128 |= s.at("S") == 128;
      single |= s.at("B") == 1 && s.at("H") == 1;
      odd_s |= s.at("S") % 256 != 0;
    }
    EXPECT_TRUE(d64 && s128 && single && odd_s);
    EXPECT_GT(p.random_hidden_shapes, 0);
  }
}

TEST(AttentionSpecs, PromptsStateTheAbiAndHideTheHiddenShapes) {
  ProblemRegistry reg(repo() / "problems");
  for (const auto& x : kAttention) {
    SCOPED_TRACE(x.name);
    auto p = reg.load(x.name);
    // The prompt as a model gets it: prompt.md with the shapes table and build line filled in.
    const std::string prompt = render_problem_prompt(p, "sm_90a");
    EXPECT_NE(prompt.find(x.entry + "("), std::string::npos);
    EXPECT_NE(prompt.find("multiple of 128"), std::string::npos);
    EXPECT_EQ(prompt.find("causal") != std::string::npos, x.causal);
    for (const auto& s : p.hidden_shapes) {
      const std::string row = "| " + std::to_string(s.at("B")) + " | " + std::to_string(s.at("H")) + " | " +
                              std::to_string(s.at("S")) + " | " + std::to_string(s.at("D")) + " |";
      EXPECT_EQ(prompt.find(row), std::string::npos) << row;
    }
    for (const auto& s : p.benchmark_shapes) {
      const std::string row = "| " + std::to_string(s.at("B")) + " | " + std::to_string(s.at("H")) + " | " +
                              std::to_string(s.at("S")) + " | " + std::to_string(s.at("D")) + " |";
      EXPECT_NE(prompt.find(row), std::string::npos) << row;
    }
  }
}

namespace {

fs::path write_toy(const std::string& extra) {
  static const ptxbench::test::TempDir root("ptxbench-attn-spec");  // removed when the test process ends
  auto dir = root.path() / "toy";
  fs::create_directories(dir);
  std::ofstream(dir / "problem.toml") << R"(
name = "toy"
title = "Toy"
entry = "ptxbench_toy"
baseline = "none"
dims = ["M"]
flops = "M"
)" << extra << R"(
[constraints]
M = { multiple_of = 64, min = 64 }
[tolerance]
Y = { rtol = 0.01, atol = 0.001, max_rel_l2 = 0.005 }
[targets.sm_90a]
groups = [["*GMMA"]]
[shapes]
benchmark = [{ M = 128 }]
sanitize = { M = 64 }
probe = { M = 64 }
)";
  return dir;
}

// The toy's workload as the worker's registry would list it (specs are checked against it).
ProblemSpec load_toy(const fs::path& dir) { return load_problem(dir, {{"toy", {"none"}}}); }

}  // namespace

TEST(ProblemSpecWorkloadOptions, ScalarsBecomeJsonAndAbsentIsEmpty) {
  auto p = load_toy(write_toy("[workload_options]\ncausal = true\nwindow = 128\nalpha = 0.5\nmode = \"x\"\n"));
  EXPECT_EQ(p.workload_options.size(), 4u);
  EXPECT_EQ(p.workload_options["causal"], true);
  EXPECT_EQ(p.workload_options["window"], 128);
  EXPECT_EQ(p.workload_options["alpha"], 0.5);
  EXPECT_EQ(p.workload_options["mode"], "x");
  auto plain = load_toy(write_toy(""));
  EXPECT_TRUE(plain.workload_options.empty());
  EXPECT_FALSE(plain.to_json().contains("workload_options"));
}

TEST(ProblemSpecWorkloadOptions, NonScalarsAreRejectedNamingTheKey) {
  try {
    load_toy(write_toy("[workload_options]\nlist = [1, 2]\n"));
    FAIL() << "an array option was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'workload_options.list'"), std::string::npos) << e.what();
  }
}

// GEMM verdicts on a real GPU. Without one, every test is skipped and says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/cli.h"
#include "support/gpu.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class GemmOnGpu : public OnGpu {
 protected:
  static std::filesystem::path ws() {
    static auto p = fresh_workspace("gpu");
    return p;
  }
  static json eval(std::vector<std::string> args) {
    std::vector<std::string> a{"eval", "--json"};
    a.insert(a.end(), args.begin(), args.end());
    auto r = run_cli(ws(), a);
    EXPECT_FALSE(r.output.is_null()) << r.process.describe() << "\n" << r.process.out << "\n" << r.process.err;
    std::cerr << r.process.err;  // progress lines, for the log
    return r.output;
  }
};

TEST_F(GemmOnGpu, NaiveIsCorrectWithoutTargets) {
  auto r = eval({file("problems/gemm/reference/naive.cu")});
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_FALSE(r["target_executed"].get<bool>());
  EXPECT_EQ(stage_of(r, "target_run")["status"], "ok") << stage_of(r, "target_run").dump();
  EXPECT_TRUE(r["executed_families"].empty()) << r["executed_families"].dump();
  EXPECT_GT(r["speedup_geomean"].get<double>(), 0);
}

TEST_F(GemmOnGpu, WgmmaTmaIsCorrectAndExecutesHgmmaAndUtmaldg) {
  auto r = eval({file("problems/gemm/reference/wgmma_tma.cu")});
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_TRUE(r["target_executed"].get<bool>()) << r["executed_families"].dump();
  EXPECT_GT(r["executed_families"].value("HGMMA", 0), 0);
  EXPECT_GT(r["executed_families"].value("UTMALDG", 0), 0);
  ASSERT_EQ(r["timing"].size(), 4u);
  for (const auto& t : r["timing"]) {
    EXPECT_GT(t["speedup"].get<double>(), 0.05) << t.dump();
    EXPECT_GE(t["samples"].get<int>(), 5);
  }
  std::cout << "wgmma_tma geomean speedup vs cuBLASLt: " << r["speedup_geomean"] << "\n";
  // The kernels cuBLASLt launched for each timed shape are recorded (stream capture).
  const json kernels = stage_of(r, "timing")["detail"]["baseline"]["kernels"];  // a copy: stage_of returns a temporary
  EXPECT_EQ(kernels.size(), 4u) << kernels.dump();
  for (const auto& [label, names] : kernels.items()) {
    EXPECT_FALSE(names.empty()) << label;
    std::cout << "cuBLASLt " << label << ": " << names.dump() << "\n";
  }
}

// The expert kernel (knowledge-pack built): correct, every Hopper target family executed. Its
// speed against cuBLAS is measured by scripts/bench.sh, never asserted here.
TEST_F(GemmOnGpu, ExpertIsCorrectAndExecutesTmaLoadsStoresAndHgmma) {
  auto r = eval({"--no-sanitize", file("problems/gemm/reference/expert.cu")});
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_TRUE(r["target_executed"].get<bool>()) << r["executed_families"].dump();
  for (const char* f : {"HGMMA", "UTMALDG", "UTMASTG"}) EXPECT_GT(r["executed_families"].value(f, 0), 0) << f;
  std::cout << "expert geomean speedup vs cuBLASLt: " << r["speedup_geomean"] << "\n";
}

TEST_F(GemmOnGpu, WrongResultIsIncorrectWithWhereAndHowMuch) {
  auto r = eval({"--no-probe", "--no-sanitize", file("tests/gpu/candidates/wrong_result.cu")});
  EXPECT_EQ(r["verdict"], "incorrect");
  auto c = stage_of(r, "correctness");
  const std::string msg = c["message"];
  EXPECT_NE(msg.find("worst at"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"row\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected"), std::string::npos) << msg;
}

TEST_F(GemmOnGpu, OutOfBoundsWriteIsASanitizerError) {
  auto r = eval({"--no-probe", "--no-timing", file("tests/gpu/candidates/oob_write.cu")});
  EXPECT_EQ(r["verdict"], "sanitizer_error") << r["reason"];
  EXPECT_NE(r["reason"].get<std::string>().find("memcheck"), std::string::npos) << r["reason"];
}

TEST_F(GemmOnGpu, InfiniteLoopTimesOutAndTheNextJobStillRuns) {
  auto r = eval({"--no-probe", "--no-timing", file("tests/gpu/candidates/infinite_loop.cu"),
                 file("problems/gemm/reference/naive.cu")});
  ASSERT_TRUE(r.is_array()) << r.dump();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["verdict"], "runtime_error");
  EXPECT_NE(r[0]["reason"].get<std::string>().find("timeout"), std::string::npos) << r[0]["reason"];
  EXPECT_EQ(r[1]["verdict"], "correct") << r[1]["reason"];
}

TEST_F(GemmOnGpu, CublasCallerIsForbidden) {
  auto r = eval({file("tests/gpu/candidates/calls_cublas.cu")});
  EXPECT_EQ(r["verdict"], "forbidden");
}

TEST_F(GemmOnGpu, CheatsAreNotCorrect) {
  auto r = eval({"--no-probe", "--no-sanitize", file("tests/gpu/candidates/cache_result.cu"),
                 file("tests/gpu/candidates/side_stream.cu"), file("tests/gpu/candidates/touch_inputs.cu")});
  ASSERT_TRUE(r.is_array() && r.size() == 3u) << r.dump();
  EXPECT_EQ(r[0]["verdict"], "incorrect") << r[0]["reason"];  // a skipped repeat call leaves NaN
  EXPECT_EQ(r[1]["verdict"], "forbidden") << r[1]["reason"];  // output made off the given stream
  EXPECT_EQ(r[2]["verdict"], "incorrect") << r[2]["reason"];  // inputs modified
  EXPECT_NE(r[2]["reason"].get<std::string>().find("modified its input A"), std::string::npos) << r[2]["reason"];
}

}  // namespace

#include "judge/worker_client.h"

namespace {

// The harness's own fp32 reference against fp64 on the CPU, and cuBLASLt's bf16 output against
// that reference (which also shows how much error a frontier library's bf16 GEMM has).
TEST_F(GemmOnGpu, ReferenceAgreesWithFp64AndCublasWithReference) {
  json job = {
      {"mode", "self_test"},
      {"workload", "gemm"},
      {"seed", 1},
      {"device", 0},
      {"fp64_shapes", json::array({{{"M", 128}, {"N", 256}, {"K", 192}}, {{"M", 256}, {"N", 128}, {"K", 1024}}})},
      {"baseline_shapes",
       json::array({{{"M", 4096}, {"N", 4096}, {"K", 4096}}, {{"M", 384}, {"N", 128}, {"K", 4032}}})},
      {"tolerances", {{"C", {{"rtol", 0.02}, {"atol", 0.01}, {"max_rel_l2", 0.008}}}}}};
  auto run = run_worker(bin_dir() / "ptxbench-worker", job, ws() / "jobs", {}, std::chrono::seconds(300));
  ASSERT_TRUE(run.done) << run.process.describe() << " " << (run.fatal ? run.fatal->dump() : "");
  auto st = run.stage("self_test");
  ASSERT_TRUE(st.has_value());
  std::cout << st->dump(2) << "\n";
  EXPECT_EQ((*st)["status"], "ok");
}

}  // namespace

// The in-process CandidateService over the real Evaluator (nvcc on the CPU; GPU stages off, so the
// verdicts are the same on every host): several candidates in flight, each judged once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "problems/registry.h"
#include "service/local_candidate_service.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {
std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }
std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(LocalCandidateService, CompilePoolAndGpuLaneJudgeEveryCandidate) {
  test::TempDir ws;
  const ProblemSpec gemm = ProblemRegistry(repo() / "problems").load("gemm");
  LocalServiceOptions o;
  o.eval.workspace = ws.path();
  o.eval.worker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-worker";
  o.eval.use_gpu = false;
  o.compile_jobs = 2;
  LocalCandidateService service(o, {});
  EXPECT_EQ(service.compile_jobs(), 2);
  EXPECT_FALSE(service.describe_gpu().gpu_stages);
  EXPECT_NE(service.describe_gpu().reason.find("--no-gpu"), std::string::npos);

  const std::string naive = read(repo() / "problems/gemm/reference/naive.cu");
  const std::string broken = naive + "\nthis is not C++;\n";
  const std::string cublas = read(repo() / "tests/gpu/candidates/calls_cublas.cu");
  auto t_naive = service.submit({&gemm, naive, "naive"});
  auto t_broken = service.submit({&gemm, broken, "broken"});
  auto t_cublas = service.submit({&gemm, cublas, "cublas"});
  const CandidateResult r_naive = t_naive.wait(), r_broken = t_broken.wait(), r_cublas = t_cublas.wait();
  EXPECT_EQ(r_naive.record.verdict, Verdict::not_run) << r_naive.record.reason;
  EXPECT_TRUE(r_naive.reached_gpu_lane);
  EXPECT_GT(r_naive.timings.prepare_seconds, 0);
  EXPECT_EQ(r_broken.record.verdict, Verdict::compile_error);
  EXPECT_FALSE(r_broken.reached_gpu_lane) << "only candidates that passed the static stage go to the GPU lane";
  EXPECT_EQ(r_cublas.record.verdict, Verdict::forbidden) << r_cublas.record.reason;
  EXPECT_FALSE(r_cublas.reached_gpu_lane);
  EXPECT_EQ(service.load().finished, 3);
  EXPECT_TRUE(std::filesystem::exists(ws.path() / "candidates" / (r_naive.record.candidate_sha256 + ".cu")))
      << "candidate files are content-addressed";
}

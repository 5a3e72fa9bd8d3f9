// The service's commands on the CPU path (CI): candidates queued with `service submit --no-wait`
// are judged by `serve --exit-when-drained` (static stages here; the GPU stages say why they were
// skipped), `service status` reports the queue and the service; `eval` of several files goes
// through the same engine and keeps the files' order.
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

bool gpu_present() { return run_process({(bin_dir() / "ptxbench-worker").string(), "--info"}).ok(); }

}  // namespace

TEST(ServiceCli, SubmittedJobsAreServedAndStatusReportsThem) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present: tests/gpu/test_service_faults_gpu.cpp covers serve there";
  const auto ws = fresh_workspace("service-cli");
  auto submit = run_cli(ws, {"service", "submit", "--no-wait", "-p", "gemm", "problems/gemm/reference/naive.cu",
                             "tests/gpu/candidates/calls_cublas.cu"});
  ASSERT_EQ(submit.process.exit_code, 0) << submit.process.err;
  auto before = run_cli(ws, {"service", "status", "--json"});
  ASSERT_FALSE(before.output.is_null()) << before.process.err;
  EXPECT_EQ(before.output["queue"]["queued"], 2);
  EXPECT_FALSE(before.output["serving"].get<bool>());

  auto serve = run_cli(ws, {"serve", "--exit-when-drained", "--lanes", "2", "--cpu-jobs", "2"});
  ASSERT_EQ(serve.process.exit_code, 0) << serve.process.err;
  auto after = run_cli(ws, {"service", "status", "--json"});
  ASSERT_FALSE(after.output.is_null()) << after.process.err;
  EXPECT_EQ(after.output["queue"]["done"], 2) << after.output.dump(2);
  EXPECT_EQ(after.output["queue"]["queued"], 0);
  EXPECT_FALSE(after.output["serving"].get<bool>());
  const json& service = after.output["service"];
  ASSERT_TRUE(service.is_object()) << after.output.dump(2);
  EXPECT_EQ(service["counters"]["completed"], 2);
  EXPECT_EQ(service["options"]["shared_lanes"], 2);
  auto text = run_cli(ws, {"service", "status"});
  EXPECT_NE(text.process.out.find("2 done"), std::string::npos) << text.process.out;
  std::filesystem::remove_all(ws);
}

TEST(ServiceCli, EvalOfSeveralFilesGoesThroughTheEngineInOrder) {
  const auto ws = fresh_workspace("service-eval");
  auto r = run_cli(ws, {"eval", "--json", "--no-store", "-p", "gemm", "tests/gpu/candidates/calls_cublas.cu",
                        "problems/gemm/reference/naive.cu", "tests/gpu/candidates/calls_cublas.cu"});
  ASSERT_TRUE(r.output.is_array()) << r.process.err;
  ASSERT_EQ(r.output.size(), 3u);
  EXPECT_EQ(r.output[0]["verdict"], "forbidden");
  EXPECT_EQ(r.output[2]["verdict"], "forbidden");
  EXPECT_NE(r.output[1]["candidate"]["path"].get<std::string>().find("naive.cu"), std::string::npos)
      << r.output[1].dump();
  if (!gpu_present()) {
    EXPECT_EQ(r.output[1]["verdict"], "not_run");
  }
  std::filesystem::remove_all(ws);
}

// The engine builds a copy of each file in the workspace; its relative includes still resolve from
// the file's own folder, as when the file is judged alone (a local header beside it; a path up
// into the problems, as the attack candidates include the references).
TEST(ServiceCli, EvalOfSeveralFilesResolvesEachFilesRelativeIncludes) {
  if (gpu_present())
    GTEST_SKIP() << "a GPU is present: the build is what this test is about (tests/gpu covers the rest)";
  const auto ws = fresh_workspace("service-eval-includes");
  const auto mine = ws / "mine";
  std::filesystem::create_directories(mine);
  std::ifstream naive(source_dir() / "problems/gemm/reference/naive.cu");
  std::ofstream(mine / "helper.cuh") << naive.rdbuf();
  std::ofstream(mine / "candidate.cu")
      << "// the whole kernel is in the header beside this file\n#include \"helper.cuh\"\n";
  auto r = run_cli(ws, {"eval", "--json", "--no-store", "-p", "gemm", (mine / "candidate.cu").string(),
                        "problems/gemm/reference/naive.cu"});
  ASSERT_TRUE(r.output.is_array()) << r.process.err;
  ASSERT_EQ(r.output.size(), 2u);
  for (const auto& rec : r.output) {
    EXPECT_NE(rec["verdict"], "compile_error") << rec.dump();
    EXPECT_EQ(stage_of(rec, "build")["status"], "ok") << stage_of(rec, "build").dump();
  }
  auto attack = run_cli(
      ws, {"eval", "--json", "--no-store", "-p", "mha_fwd",
           "tests/gpu/candidates/attacks/attention_fwd_counts_calls.cu", "problems/mha_fwd/reference/naive.cu"});
  ASSERT_TRUE(attack.output.is_array()) << attack.process.err;
  ASSERT_EQ(attack.output.size(), 2u);
  EXPECT_EQ(stage_of(attack.output[0], "build")["status"], "ok") << stage_of(attack.output[0], "build").dump();
  std::filesystem::remove_all(ws);
}

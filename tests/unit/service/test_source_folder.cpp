// A queued candidate's `source_folder`: its build resolves the candidate's relative includes there
// only when the executor trusts the queue (this host's workspace), never for a shared queue's job.
#include <gtest/gtest.h>

#include <fstream>

#include "problems/registry.h"
#include "service/engine/evaluator_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;

TEST(SourceFolder, ATrustedQueuesFolderResolvesTheIncludesAnUntrustedOnesDoesNot) {
  test::TempDir ws, folder;
  ProblemRegistry registry(std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems");
  const ProblemSpec gemm = registry.load("gemm");
  std::ifstream naive(std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems/gemm/reference/naive.cu");
  std::ofstream(folder.path() / "kernel_beside.cuh") << naive.rdbuf();
  const std::string source = "#include \"kernel_beside.cuh\"\n";
  EvalOptions o;
  o.workspace = ws.path();
  o.use_gpu = false;
  EvaluatorExecutor executor(
      o, [&](const std::string&) -> const ProblemSpec& { return gemm; }, {}, false);
  const LeasedJob job{"j1", candidate_payload("gemm", source, "beside", folder.path()), 1, "test", 0};
  auto build_status = [&] {
    PreparedJob p = executor.prepare(job);
    // Without a GPU a built candidate still needs its GPU stages; one that failed is judged already.
    if (p.needs_gpu) return std::string("ok");
    const json& stages = p.result.at("record").at("stages");
    return stages.at(0).at("status").get<std::string>() + ": " + stages.at(0).value("message", "");
  };
  const std::string untrusted = build_status();
  EXPECT_NE(untrusted.find("kernel_beside.cuh"), std::string::npos) << untrusted;
  executor.trust_source_folders(true);
  EXPECT_EQ(build_status(), "ok");
  EXPECT_EQ(candidate_payload("gemm", source, "x").count("source_folder"), 0u) << "no folder, no key";
}

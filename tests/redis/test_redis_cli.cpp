// The CLI across a Redis queue, on the CPU: `ptxbench serve --queue redis://...` judges a
// candidate that `ptxbench eval --queue ... --submit-only` queued from another workspace (its
// build and static stages run on the serve side; no GPU here, so the GPU stages are skipped),
// `service status --queue` lists the serving worker, and a malformed URL is refused saying why.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "redis_server.h"
#include "support/cli.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

TEST(RedisCli, ServeJudgesWhatASubmitOnlyEvalQueuedAndStatusListsTheWorker) {
  if (test::redis_server_binary().empty())
    GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  test::TempDir dir("ptxbench-redis-cli");
  test::RedisServer redis(dir.path() / "redis");
  const std::string url = redis.url("cli");
  const pid_t serve = test::spawn_process(
      {(test::bin_dir() / "ptxbench").string(), "--workspace", (dir.path() / "serve").string(), "--problems",
       (test::source_dir() / "problems").string(), "serve", "--queue", url, "--no-health-probe", "--cpu-jobs", "1"});
  auto eval = test::run_cli(dir.path() / "submitter",
                            {"eval", "-p", "gemm", (test::source_dir() / "problems/gemm/reference/naive.cu").string(),
                             "--queue", url, "--submit-only", "--json"},
                            400s);
  auto status = test::run_cli(dir.path() / "submitter", {"service", "status", "--queue", url, "--json"}, 60s);
  kill(serve, SIGTERM);
  waitpid(serve, nullptr, 0);
  ASSERT_TRUE(eval.output.is_object()) << eval.process.describe() << "\n" << eval.process.err;
  const json& stages = eval.output.at("stages");
  ASSERT_GE(stages.size(), 2u);
  EXPECT_EQ(stages[0].at("name"), "build");
  EXPECT_EQ(stages[0].at("status"), "ok") << stages[0].dump();
  EXPECT_EQ(stages[1].at("name"), "static");
  EXPECT_EQ(stages[1].at("status"), "ok") << stages[1].dump();
  ASSERT_TRUE(status.output.is_object()) << status.process.describe() << "\n" << status.process.err;
  EXPECT_EQ(status.output.at("queue").at("done"), 1);
  ASSERT_EQ(status.output.at("workers").size(), 1u);
  EXPECT_TRUE(status.output.at("workers")[0].contains("lanes"));

  auto bad = test::run_cli(dir.path() / "submitter", {"serve", "--queue", "redis://host:port/0"}, 30s);
  EXPECT_NE(bad.process.exit_code, 0);
  EXPECT_NE(bad.process.err.find("port 'port' is not a number"), std::string::npos) << bad.process.err;
}

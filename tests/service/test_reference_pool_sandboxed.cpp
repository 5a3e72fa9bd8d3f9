// The eval worker's reference pool socket (judge/reference_session.h) through the real worker
// client and sandbox (bubblewrap, seccomp, Landlock where the host has them), with the simulated
// worker speaking the protocol: a memory file made inside the sandbox reaches the service sealed,
// one handed out by the service is readable inside it, and a second request for one set is a
// violation however it arrives.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <iostream>

#include "judge/reference_session.h"
#include "judge/worker_client.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";

void fill_with(void* data, size_t bytes, void* ctx) { std::memset(data, *static_cast<int*>(ctx), bytes); }

PooledSet pooled_set(uint64_t seed, size_t bytes, int value) {
  return {seed, std::make_shared<const UniqueFd>(sealed_memory_file("test", bytes, fill_with, &value)), bytes};
}

json answers_of(const WorkerRun& run) {
  const auto events = run.of_type("reference_pool");
  return events.empty() ? json::array() : events.front().at("answers");
}

json script_job(json script) { return {{"mode", "reference_pool"}, {"script", std::move(script)}}; }

}  // namespace

TEST(ReferencePoolSandboxed, ASetMadeInTheSandboxIsPooledAndHandedBackAfterTheSeal) {
  test::TempDir dir("ptxbench-reference-pool");
  std::vector<uint64_t> pooled;
  ReferenceSession session({{"S", {}, 1}},
                           [&](const std::string&, const PooledSet& set, double) { pooled.push_back(set.seed); });
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 20s);
  launch.reference_session = &session;
  const WorkerRun run =
      run_worker(launch, script_job({{{"op", "put"}, {"shape", "S"}, {"seed", 9u}, {"bytes", 1u << 20}, {"fill", 7}},
                                     {{"op", "seal"}},
                                     {{"op", "get"}, {"shape", "S"}, {"seed", 9u}}}));
  ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  std::cout << "sandbox: " << run.sandbox.dump() << "\n";
  const json a = answers_of(run);
  ASSERT_EQ(a.size(), 3u) << a.dump();
  EXPECT_TRUE(a[0].value("ok", false)) << a.dump();
  EXPECT_TRUE(a[1].value("ok", false)) << a.dump();
  EXPECT_TRUE(a[2].value("ok", false)) << a.dump();
  EXPECT_EQ(a[2].value("file_first_byte", -1), 7) << a.dump();
  EXPECT_EQ(pooled, std::vector<uint64_t>{9});
  EXPECT_TRUE(session.violations().empty());
  EXPECT_EQ(session.summary().value("handed_out", 0), 1);
}

TEST(ReferencePoolSandboxed, ASecondRequestForOneSetIsAViolation) {
  test::TempDir dir("ptxbench-reference-pool");
  ReferenceSession session({{"S", {pooled_set(5, 4096, 3)}, 0}}, nullptr);
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 20s);
  launch.reference_session = &session;
  const WorkerRun run = run_worker(launch, script_job({{{"op", "seal"}},
                                                       {{"op", "get"}, {"shape", "S"}, {"seed", 5u}},
                                                       {{"op", "get"}, {"shape", "S"}, {"seed", 5u}}}));
  ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  const json a = answers_of(run);
  ASSERT_EQ(a.size(), 3u) << a.dump();
  EXPECT_EQ(a[1].value("file_first_byte", -1), 3) << a.dump();
  EXPECT_FALSE(a[2].value("ok", true)) << a.dump();
  ASSERT_EQ(session.violations().size(), 1u);
  EXPECT_NE(session.violations()[0].find("asked for twice"), std::string::npos) << session.violations()[0];
}

// Without a session the worker gets no socket: the job names none.
TEST(ReferencePoolSandboxed, NoSessionNoSocket) {
  test::TempDir dir("ptxbench-reference-pool");
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 20s);
  const WorkerRun run = run_worker(launch, script_job({{{"op", "seal"}}}));
  ASSERT_TRUE(run.done) << run.process.describe();
  const json a = answers_of(run);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].contains("error")) << a.dump();
}

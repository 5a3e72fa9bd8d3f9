// The timed worker's request for exclusive use of its GPU (service/exclusive_handshake.h), with the
// simulated GPU stage through the real worker client and sandbox: it asks once, waits for the
// answer, is refused cleanly; a stage that times nothing never asks; and in the engine the timed
// stage starts beside shared stages yet never times beside one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "service/engine/service_engine.h"
#include "service/infra_fault.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";

json stage_job(const char* phase, int setup_ms = 0) {
  return {{"mode", "eval"}, {"accounting", false}, {"stream_discipline", false}, {"phase", phase},
          {"device", 0},    {"ms", 5},             {"setup_ms", setup_ms}};
}

using test::FakeGpus;

}  // namespace

TEST(TimedHandshake, TheTimedWorkerAsksOnceAndTimesAfterTheAnswer) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
  std::atomic<int> asked{0};
  launch.exclusive_gpu = [&] { ++asked; };
  WorkerRun run = run_worker(launch, stage_job("timed", 20));
  EXPECT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  EXPECT_EQ(asked.load(), 1);
  EXPECT_EQ(run.of_type("timing").size(), 1u) << run.process.result;
}

TEST(TimedHandshake, ARefusedRequestEndsTheWorkerAndIsRethrownAfterIt) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 20s);
  launch.exclusive_gpu = [] { throw InfraFault("GPU 0 stayed excluded from timing (throttled)"); };
  const auto start = std::chrono::steady_clock::now();
  try {
    run_worker(launch, stage_job("timed"));
    ADD_FAILURE() << "a refused exclusive use was not rethrown";
  } catch (const InfraFault& e) {
    EXPECT_NE(std::string(e.what()).find("excluded from timing"), std::string::npos) << e.what();
  }
  // The worker was told and ended: nothing waited for its 20 s deadline.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
}

TEST(TimedHandshake, AStageThatTimesNothingNeverAsks) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
  std::atomic<int> asked{0};
  launch.exclusive_gpu = [&] { ++asked; };
  WorkerRun run = run_worker(launch, stage_job("shared"));
  EXPECT_TRUE(run.done) << run.process.describe();
  EXPECT_EQ(asked.load(), 0);
}

// One GPU, three lanes: the timed stages start while shared ones run (the GPU stays busy while a
// timed worker sets up), and no shared stage ever runs while one of them times (flock-checked in
// the fake worker, across processes).
TEST(TimedHandshake, InTheEngineTheTimedStageStartsBesideSharedStagesButTimesAlone) {
  test::TempDir dir("ptxbench-handshake-engine");
  FakeGpus gpus(dir.path());
  const auto db = dir.path() / "ptxbench.db";
  SqliteJobQueue q(db, {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  constexpr int kJobs = 24;
  for (int i = 0; i < kJobs; ++i) ASSERT_TRUE(q.enqueue("job-" + std::to_string(i), {{"ms", 120}, {"setup_ms", 120}}, nullptr).ok);
  test::SimulatedExecutor executor(kFakeWorker, dir.path() / "jobs", 10000ms);
  EngineOptions o = test::simulated_engine_options(3, 2, 5000, 10);
  o.devices = {0};
  ServiceEngine engine(q, executor, nullptr, o, test::simulated_monitor_options());
  engine.start();
  engine.wait_until_drained();
  engine.stop();
  int beside = 0;
  for (int i = 0; i < kJobs; ++i) {
    const std::string id = "job-" + std::to_string(i);
    std::optional<JobOutcome> out;
    ASSERT_TRUE(q.outcome(id, &out).ok);
    ASSERT_TRUE(out && out->state == JobState::done) << id << ": " << (out ? out->reason : "lost");
    EXPECT_EQ(out->result.value("verdict", ""), "correct") << id << ": " << out->result.dump();
    EXPECT_FALSE(out->result.value("overlap", true)) << id << ": a shared stage ran while the GPU was timing";
    beside += out->result.value("setup_beside_shared", false);
    EXPECT_FALSE(out->result.value("settled_after_grant", true)) << id << ": granted while a clean shared stage still ran";
  }
  EXPECT_GT(beside, 0) << "no timed stage started while a shared stage ran: exclusive use was taken at its start";
}

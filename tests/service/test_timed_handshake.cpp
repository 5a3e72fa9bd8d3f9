// The timed worker's request for exclusive use of its GPU (judge/exclusive_handshake.h), with the
// simulated GPU stage through the real worker client and sandbox: it asks once, waits for the
// answer, is refused cleanly; a stage that times nothing never asks; and in the engine the timed
// stage starts beside shared stages yet never times beside one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "judge/infra_fault.h"
#include "judge/timed_grant.h"
#include "service/engine/service_engine.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";

json stage_job(const char* phase, int setup_ms = 0, const std::string& grant = "") {
  json j = {{"mode", "eval"}, {"accounting", false}, {"stream_discipline", false}, {"phase", phase}, {"device", 0},
            {"ms", 5},        {"setup_ms", setup_ms}};
  if (!grant.empty()) j["grant"] = grant;
  return j;
}

using test::FakeGpus;

// Judges every queued job through an engine on GPU 0 with `lanes` shared lanes and the simulated
// worker; the engine's snapshot once the queue drained.
json drain_through_engine(SqliteJobQueue& q, const std::filesystem::path& dir, int lanes,
                          bool hold_unpausable_for_timed_start = false) {
  test::SimulatedExecutor executor(kFakeWorker, dir / "jobs", 10000ms);
  EngineOptions o = test::simulated_engine_options(lanes, 2, 5000, 10);
  o.devices = {0};
  o.hold_unpausable_for_timed_start = hold_unpausable_for_timed_start;
  ServiceEngine engine(q, executor, nullptr, o, test::simulated_monitor_options());
  engine.start();
  engine.wait_until_drained();
  json snapshot = engine.snapshot();
  engine.stop();
  return snapshot;
}

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

TEST(TimedHandshake, TheGrantCarriesAFreshTokenThatTheWorkerReports) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  std::set<std::string> tokens;
  for (int i = 0; i < 2; ++i) {
    WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
    bool granted = false;
    launch.exclusive_gpu = [&] { granted = true; };
    WorkerRun run = run_worker(launch, stage_job("timed"));
    ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
    ASSERT_EQ(run.exclusive_grant_token.size(), kGrantTokenLength);
    ASSERT_EQ(run.of_type("exclusive_gpu").size(), 1u);
    EXPECT_EQ(run.of_type("exclusive_gpu").front().value("grant", ""), run.exclusive_grant_token);
    EXPECT_EQ(why_timed_without_grant(run, granted), "");
    tokens.insert(run.exclusive_grant_token);
  }
  EXPECT_EQ(tokens.size(), 2u) << "two runs were granted with the same token";
}

// Candidate code that answers the worker's request itself (its own socket in place of the
// harness's): without asking the harness, or asking it but timing first on its own answer.
TEST(TimedHandshake, AWorkerTimedOnAGrantTheHarnessNeverGaveIsForbidden) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  for (const std::string grant : {"faked", "other_token"}) {
    WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
    std::atomic<int> asked{0};
    launch.exclusive_gpu = [&] { ++asked; };
    WorkerRun run = run_worker(launch, stage_job("timed", 0, grant));
    ASSERT_TRUE(run.done) << grant << ": " << run.process.describe() << "\n" << run.output_tail();
    EXPECT_EQ(asked.load(), grant == "faked" ? 0 : 1) << grant;
    const std::string why = why_timed_without_grant(run, asked.load() > 0);
    EXPECT_NE(why.find(grant == "faked" ? "without the harness's grant" : "a grant the harness never gave"),
              std::string::npos)
        << grant << ": " << why;
  }
}

// A worker that times the library alone before its candidate loads: the GPU alone for that, back
// to shared for the load, alone again for the timed samples, each grant with a token of its own.
TEST(TimedHandshake, AWorkerThatTimesTheLibraryAloneFirstGivesTheGpuBackBeforeTiming) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
  std::vector<std::string> calls;  // in the order the harness was asked
  launch.exclusive_gpu = [&] { calls.push_back("exclusive"); };
  launch.shared_gpu_again = [&] { calls.push_back("shared"); };
  json job = stage_job("timed", 20);
  job["clean_baseline_ms"] = 20;
  WorkerRun run = run_worker(launch, job);
  ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  EXPECT_EQ(calls, (std::vector<std::string>{"exclusive", "shared", "exclusive"}));
  ASSERT_EQ(run.exclusive_grant_tokens.size(), 2u);
  EXPECT_NE(run.exclusive_grant_tokens[0], run.exclusive_grant_tokens[1]);
  EXPECT_EQ(run.exclusive_grant_token, run.exclusive_grant_tokens[1]) << "the timing grant is the second";
  const auto grants = run.of_type("exclusive_gpu");
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0].value("for", ""), "clean_baseline");
  EXPECT_EQ(grants[0].value("grant", ""), run.exclusive_grant_tokens[0]);
  EXPECT_EQ(run.of_type("shared_gpu").size(), 1u);
  EXPECT_EQ(why_timed_without_grant(run, true), "");
  // Its clean-baseline grant alone is no grant for the timed samples.
  WorkerRun only_clean = run;
  only_clean.events.erase(std::remove_if(only_clean.events.begin(), only_clean.events.end(),
                                         [&](const json& e) {
                                           return e.value("type", "") == "exclusive_gpu" &&
                                                  e.value("grant", "") == run.exclusive_grant_token;
                                         }),
                          only_clean.events.end());
  EXPECT_NE(why_timed_without_grant(only_clean, true).find("no grant for its timed samples"), std::string::npos);
}

// A worker whose job is timing only keeps the GPU from its clean timings to its timed samples
// (no second wait for the other lanes): asking for timing then takes nothing more from the gate,
// and the timing grant still carries a token of its own.
TEST(TimedHandshake, AWorkerThatKeepsTheGpuAfterItsCleanTimingsIsGrantedTimingWithoutASecondWait) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
  std::vector<std::string> calls;
  launch.exclusive_gpu = [&] { calls.push_back("exclusive"); };
  launch.shared_gpu_again = [&] { calls.push_back("shared"); };
  json job = stage_job("timed", 20);
  job["clean_baseline_ms"] = 20;
  job["keeps_gpu"] = true;
  WorkerRun run = run_worker(launch, job);
  ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  EXPECT_EQ(calls, (std::vector<std::string>{"exclusive"})) << "the GPU was given back or taken twice";
  ASSERT_EQ(run.exclusive_grant_tokens.size(), 2u);
  EXPECT_NE(run.exclusive_grant_tokens[0], run.exclusive_grant_tokens[1]);
  EXPECT_EQ(run.exclusive_grant_token, run.exclusive_grant_tokens[1]);
  EXPECT_TRUE(run.of_type("shared_gpu").empty());
  EXPECT_EQ(why_timed_without_grant(run, true), "");
}

// Once granted for timing nothing more is served: a give-back then (candidate code writing on the
// socket) would let other lanes' work, or another candidate's timing, run beside its samples. The
// honest worker never writes it, so the run is forbidden.
TEST(TimedHandshake, AGiveBackAfterTheTimingGrantIsIgnoredAndForbidden) {
  test::TempDir dir("ptxbench-handshake");
  FakeGpus gpus(dir.path());
  for (const bool clean_first : {false, true}) {
    WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s);
    std::atomic<int> asked{0}, given_back{0};
    launch.exclusive_gpu = [&] { ++asked; };
    launch.shared_gpu_again = [&] { ++given_back; };
    json job = stage_job("timed", 0, "give_back_after_timing");
    if (clean_first) job["clean_baseline_ms"] = 10;
    WorkerRun run = run_worker(launch, job);
    ASSERT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
    EXPECT_EQ(asked.load(), clean_first ? 2 : 1);
    EXPECT_EQ(given_back.load(), clean_first ? 1 : 0) << "a give-back after the timing grant was served";
    EXPECT_EQ(run.exclusive_handshake_misuse, "'r' after the timing grant");
    EXPECT_NE(why_timed_without_grant(run, true).find(
                  "wrote on the timed worker's exclusive-use socket: 'r' after the timing grant"),
              std::string::npos)
        << why_timed_without_grant(run, true);
  }
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
  for (int i = 0; i < kJobs; ++i)
    ASSERT_TRUE(q.enqueue("job-" + std::to_string(i), {{"ms", 120}, {"setup_ms", 120}}, nullptr).ok);
  drain_through_engine(q, dir.path(), 3);
  int beside = 0;
  for (int i = 0; i < kJobs; ++i) {
    const std::string id = "job-" + std::to_string(i);
    std::optional<JobOutcome> out;
    ASSERT_TRUE(q.outcome(id, &out).ok);
    ASSERT_TRUE(out && out->state == JobState::done) << id << ": " << (out ? out->reason : "lost");
    EXPECT_EQ(out->result.value("verdict", ""), "correct") << id << ": " << out->result.dump();
    EXPECT_FALSE(out->result.value("overlap", true)) << id << ": a shared stage ran while the GPU was timing";
    beside += out->result.value("setup_beside_shared", false);
    EXPECT_FALSE(out->result.value("settled_after_grant", true))
        << id << ": granted while a clean shared stage still ran";
    EXPECT_FALSE(out->result.value("clean_baseline_beside_shared", true))
        << id << ": the library was timed beside a shared stage";
  }
  EXPECT_GT(beside, 0) << "no timed stage started while a shared stage ran: exclusive use was taken at its start";
}

// Every third timed stage times the library alone first and gives the GPU back: those clean
// timings never run beside a shared stage, and nor does any timed sample.
TEST(TimedHandshake, InTheEngineCleanTimingsAreAloneAndTheGpuIsSharedAgainAfterThem) {
  test::TempDir dir("ptxbench-handshake-engine");
  FakeGpus gpus(dir.path());
  SqliteJobQueue q(dir.path() / "ptxbench.db", {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  constexpr int kJobs = 18;
  for (int i = 0; i < kJobs; ++i)
    ASSERT_TRUE(q.enqueue("job-" + std::to_string(i),
                          {{"ms", 80}, {"setup_ms", 80}, {"clean_baseline_ms", i % 3 == 0 ? 60 : 0}}, nullptr)
                    .ok);
  drain_through_engine(q, dir.path(), 3);
  for (int i = 0; i < kJobs; ++i) {
    const std::string id = "job-" + std::to_string(i);
    std::optional<JobOutcome> out;
    ASSERT_TRUE(q.outcome(id, &out).ok);
    ASSERT_TRUE(out && out->state == JobState::done) << id << ": " << (out ? out->reason : "lost");
    EXPECT_EQ(out->result.value("verdict", ""), "correct") << id << ": " << out->result.dump();
    EXPECT_FALSE(out->result.value("overlap", true)) << id << ": a shared stage ran while the GPU was timing";
    EXPECT_FALSE(out->result.value("clean_baseline_beside_shared", true))
        << id << ": the library was timed beside a shared stage";
  }
}

// In the engine a faked grant is the candidate's verdict, judged once: never an infra fault that
// runs the job again (and at last ends it as infra_error, which counts against no model).
TEST(TimedHandshake, InTheEngineAFakedGrantIsForbiddenAtTheFirstAttempt) {
  test::TempDir dir("ptxbench-handshake-engine");
  FakeGpus gpus(dir.path());
  SqliteJobQueue q(dir.path() / "ptxbench.db", {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  ASSERT_TRUE(q.enqueue("faked", {{"ms", 20}, {"grant", "faked"}}, nullptr).ok);
  ASSERT_TRUE(q.enqueue("honest", {{"ms", 20}}, nullptr).ok);
  drain_through_engine(q, dir.path(), 2);
  std::optional<JobOutcome> faked, honest;
  ASSERT_TRUE(q.outcome("faked", &faked).ok && faked && q.outcome("honest", &honest).ok && honest);
  EXPECT_EQ(faked->state, JobState::done) << faked->reason;
  EXPECT_EQ(faked->result.value("verdict", ""), "forbidden") << faked->result.dump();
  EXPECT_EQ(faked->result.value("attempt", 0), 1) << "the faked grant was run again";
  EXPECT_EQ(honest->result.value("verdict", ""), "correct") << honest->result.dump();
}

// With the hold (EngineOptions::hold_unpausable_for_timed_start), a shared stage that cannot pause
// waits while a timed worker starts: nothing overlaps a timed sample still, every job is correct,
// the holds are counted, and the drains are split by what they waited on.
TEST(TimedHandshake, InTheEngineSharedStagesThatCannotPauseWaitForATimedWorkerStarting) {
  test::TempDir dir("ptxbench-handshake-hold");
  FakeGpus gpus(dir.path());
  const auto db = dir.path() / "ptxbench.db";
  SqliteJobQueue q(db, {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  constexpr int kJobs = 18;
  // Every other job is wrong (its lane is free again after its shared stage, as after a failing
  // candidate's), so that a lane's next job starts while another lane's timed worker is still
  // starting (a long start) with no timed worker waiting to be granted.
  for (int i = 0; i < kJobs; ++i) {
    json payload = {{"ms", 60}, {"setup_ms", 400}};
    if (i % 2) payload["fault"] = "wrong";
    ASSERT_TRUE(q.enqueue("job-" + std::to_string(i), payload, nullptr).ok);
  }
  const json gpu = drain_through_engine(q, dir.path(), 3, /*hold_unpausable_for_timed_start=*/true)["gpus"][0];
  for (int i = 0; i < kJobs; ++i) {
    const std::string id = "job-" + std::to_string(i);
    std::optional<JobOutcome> out;
    ASSERT_TRUE(q.outcome(id, &out).ok);
    ASSERT_TRUE(out && out->state == JobState::done) << id << ": " << (out ? out->reason : "lost");
    EXPECT_EQ(out->result.value("verdict", ""), i % 2 ? "incorrect" : "correct") << id << ": " << out->result.dump();
    EXPECT_FALSE(out->result.value("overlap", true)) << id << ": a shared stage ran while the GPU was timing";
  }
  EXPECT_GT(gpu.value("held_back_seconds", 0.0), 0.0) << gpu.dump();
  EXPECT_EQ(gpu.value("timed_starting", -1), 0) << gpu.dump();
  const json d = gpu.at("draining_seconds");
  EXPECT_NEAR(d.value("all", -1.0),
              d.value("on_timed_start", 0.0) + d.value("on_unpausable", 0.0) + d.value("on_pause", 0.0), 0.01)
      << d.dump();
}

// The cooperative pause (core/shared_pause.h) with the simulated GPU stage through the real worker
// client and sandbox: a shared worker asked to pause stops at its next call boundary and the timed
// stage has the GPU without waiting for it to end; one that acknowledges and keeps launching is
// caught by its own report held against the window (forbidden, and the victim's timing taken
// again); a forged report is forbidden; one that never acknowledges is waited for, as before; and in
// the engine an honest pause gives the verdicts the drain gives.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "judge/shared_pause_link.h"
#include "service/engine/gpu_gate.h"
#include "service/engine/service_engine.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";

json shared_job(int ms, const std::string& pause_fault = "", int before_calls_ms = 0) {
  json j = {
      {"mode", "eval"}, {"accounting", true}, {"stream_discipline", false},        {"phase", "shared"}, {"device", 0},
      {"ms", ms},       {"call_ms", 5},       {"before_calls_ms", before_calls_ms}};
  if (!pause_fault.empty()) j["pause_fault"] = pause_fault;
  return j;
}

// A shared stage of `ms` running pausable on `gate`, and a timed use taken beside it once it ran a while.
struct PausedBeside {
  WorkerRun run;
  SharedPauseLink link;
  std::atomic<bool> shared_ended{false};
  bool granted_while_shared_ran = false;
  std::string untrusted;
  double waited_seconds = 0;
};

void time_beside_a_shared_stage(const std::filesystem::path& dir, GpuGate& gate, PausedBeside& p, int ms,
                                const std::string& pause_fault, int before_calls_ms = 0) {
  std::thread shared([&] {
    WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir / "jobs", 20s);
    launch.pause_link = &p.link;
    auto use = gate.shared_use(&p.link);
    p.run = run_worker(launch, shared_job(ms, pause_fault, before_calls_ms));
    // Before the use is given back: the gate may grant the timed use the moment it is, and a flag
    // set after that races the timed side's read (seen under load: granted "while" a stage that had ended).
    p.shared_ended = true;
  });
  std::this_thread::sleep_for(300ms);  // the worker is in its calls by now (its sandbox started)
  const auto t0 = std::chrono::steady_clock::now();
  TimedWorkerUse use(gate);
  use.become_exclusive();
  p.waited_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.granted_while_shared_ran = !p.shared_ended;
  std::this_thread::sleep_for(100ms);  // the timed samples
  p.untrusted = use.end();
  shared.join();
}

using test::FakeGpus;

}  // namespace

TEST(SharedPause, ASharedWorkerPausesAtItsNextCallAndTheTimedStageNeedNotWaitForItsEnd) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 5s);
  PausedBeside p;
  time_beside_a_shared_stage(dir.path(), gate, p, 3000, "");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_TRUE(p.granted_while_shared_ran) << "the timed stage waited for the shared stage to end";
  EXPECT_LT(p.waited_seconds, 2.0);
  EXPECT_EQ(p.untrusted, "");
  EXPECT_EQ(p.link.pauses(), 1);
  EXPECT_EQ(p.link.violation(), "");
  EXPECT_EQ(p.run.of_type("paused").size(), 1u);
  const auto st = p.run.stage("correctness");
  ASSERT_TRUE(st);
  EXPECT_FALSE(st->value("overlap", true)) << "the paused stage ran beside the timed one";
  const auto s = gate.snapshot();
  EXPECT_EQ(s.paused_grants, 1);
  EXPECT_EQ(s.untrusted_windows, 0);
}

// The attack: candidate code that acknowledges the pause (or lets the harness do it) and keeps
// launching. Its own activity records, held against the window, catch it.
TEST(SharedPause, AWorkerThatAcknowledgesAndKeepsLaunchingIsForbiddenAndTheWindowUntrusted) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 5s);
  PausedBeside p;
  time_beside_a_shared_stage(dir.path(), gate, p, 3000, "keeps_running");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_NE(p.untrusted.find("kept the GPU busy in the exclusive window: kernel 'spin' (candidate_call)"),
            std::string::npos)
      << p.untrusted;
  EXPECT_NE(p.link.violation().find("after it acknowledged the pause"), std::string::npos) << p.link.violation();
  EXPECT_EQ(gate.snapshot().untrusted_windows, 1);
}

TEST(SharedPause, AForgedPauseReportIsForbidden) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 5s);
  PausedBeside p;
  time_beside_a_shared_stage(dir.path(), gate, p, 2000, "forged_report");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_NE(p.untrusted.find("does not verify"), std::string::npos) << p.untrusted;
  EXPECT_NE(p.link.violation().find("does not verify"), std::string::npos) << p.link.violation();
}

TEST(SharedPause, AWorkerThatNeverAcknowledgesIsWaitedForAsWithoutThePause) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 300ms);
  PausedBeside p;
  time_beside_a_shared_stage(dir.path(), gate, p, 1500, "never_acks");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_FALSE(p.granted_while_shared_ran) << "timed while a shared stage that never paused still ran";
  EXPECT_EQ(p.untrusted, "");
  EXPECT_EQ(p.link.violation(), "");
  EXPECT_EQ(gate.snapshot().pause_fallbacks, 1);
}

// Asked while it was still setting up (no call boundary in time): the request is withdrawn, the timed
// stage waits for it to end, and the worker's late acknowledgement is answered at once, so it runs
// on to its end instead of waiting for a resume that would never come.
TEST(SharedPause, ARequestAcknowledgedTooLateIsWithdrawnAndTheWorkerRunsOn) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 200ms);
  PausedBeside p;
  time_beside_a_shared_stage(dir.path(), gate, p, 600, "", /*before_calls_ms=*/1000);
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_FALSE(p.granted_while_shared_ran);
  EXPECT_LT(p.run.process.seconds, 10.0) << "the worker waited for a resume after its late acknowledgement";
  EXPECT_EQ(p.run.of_type("paused").size(), 1u) << "the late acknowledgement was not answered";
  EXPECT_EQ(p.untrusted, "");
  EXPECT_EQ(p.link.violation(), "");
  EXPECT_EQ(gate.snapshot().pause_fallbacks, 1);
}

namespace {

std::map<std::string, JobOutcome> run_queue(const std::filesystem::path& dir, const std::map<std::string, json>& jobs,
                                            bool pausing, bool pausable_timed_start = false) {
  SqliteJobQueue q(dir / "ptxbench.db", {.max_attempts = 3});
  EXPECT_TRUE(q.status().ok) << q.status().error;
  for (const auto& [id, payload] : jobs) EXPECT_TRUE(q.enqueue(id, payload, nullptr).ok);
  test::SimulatedExecutor executor(kFakeWorker, dir / "jobs", 20000ms, pausing, pausable_timed_start);
  EngineOptions o = test::simulated_engine_options(3, 2, 10000, 10);
  o.devices = {0};
  o.shared_pause_timeout = pausing ? 5000ms : 0ms;
  ServiceEngine engine(q, executor, nullptr, o, test::simulated_monitor_options());
  engine.start();
  engine.wait_until_drained();
  engine.stop();
  std::map<std::string, JobOutcome> out;
  for (const auto& [id, payload] : jobs) {
    std::optional<JobOutcome> o1;
    EXPECT_TRUE(q.outcome(id, &o1).ok);
    EXPECT_TRUE(o1.has_value()) << id << " lost";
    if (o1) out[id] = *o1;
  }
  return out;
}

}  // namespace

// In the engine: a candidate whose shared stage keeps launching while paused is forbidden at the
// first attempt, and the candidate timed in that window is timed again and judged as ever.
TEST(SharedPause, InTheEngineTheAttackerIsForbiddenAndTheVictimTimedAgain) {
  test::TempDir dir("ptxbench-pause-engine");
  FakeGpus gpus(dir.path());
  const std::map<std::string, json> jobs = {
      {"attacker", {{"ms", 4000}, {"call_ms", 5}, {"pause_fault", "keeps_running"}}},
      {"victim", {{"ms", 20}, {"setup_ms", 200}}}};
  const auto out = run_queue(dir.path(), jobs, true);
  const JobOutcome& attacker = out.at("attacker");
  const JobOutcome& victim = out.at("victim");
  ASSERT_EQ(attacker.state, JobState::done) << attacker.reason;
  EXPECT_EQ(attacker.result.value("verdict", ""), "forbidden") << attacker.result.dump();
  EXPECT_NE(attacker.result.value("reason", "").find("after it acknowledged the pause"), std::string::npos)
      << attacker.result.dump();
  EXPECT_EQ(attacker.result.value("attempt", 0), 1) << "the attack was run again as an infra fault";
  ASSERT_EQ(victim.state, JobState::done) << victim.reason;
  EXPECT_EQ(victim.result.value("verdict", ""), "correct") << victim.result.dump();
  EXPECT_NE(victim.result.value("timing_taken_again", "").find("kept the GPU busy"), std::string::npos)
      << victim.result.dump();
  EXPECT_TRUE(victim.result.value("first_timing_overlap", false))
      << "the discarded timing did not in fact run beside the attacker: " << victim.result.dump();
  EXPECT_FALSE(victim.result.value("overlap", true)) << "the timing kept ran beside a shared stage";
}

// The same mixed queue drained and paused: the same verdicts, no timing beside a shared stage, and
// the pause in fact used.
TEST(SharedPause, InTheEngineAnHonestPauseGivesTheVerdictsOfTheDrain) {
  std::map<std::string, json> jobs;
  for (int i = 0; i < 12; ++i) {
    json p = {{"ms", i % 3 == 0 ? 600 : 120}, {"setup_ms", 60}, {"call_ms", 5}};
    if (i % 4 == 1) p["fault"] = "wrong";
    if (i % 5 == 2) p["build"] = "compile_error";
    jobs["job-" + std::to_string(i)] = p;
  }
  std::map<std::string, std::string> verdicts[2];
  int pauses = 0, paused_beside[2] = {0, 0};
  for (const bool pausing : {false, true}) {
    test::TempDir dir("ptxbench-pause-engine");
    FakeGpus gpus(dir.path());
    for (const auto& [id, o] : run_queue(dir.path(), jobs, pausing)) {
      ASSERT_EQ(o.state, JobState::done) << id << ": " << o.reason;
      verdicts[pausing][id] = o.result.value("verdict", "");
      EXPECT_FALSE(o.result.value("overlap", false)) << id << ": a shared stage ran while the GPU was timing";
      EXPECT_FALSE(o.result.contains("timing_taken_again")) << id << ": " << o.result.dump();
      pauses += o.result.value("shared_pauses", 0);
      paused_beside[pausing] += o.result.value("paused_beside", 0);
    }
  }
  EXPECT_EQ(verdicts[0], verdicts[1]);
  EXPECT_GT(pauses, 0) << "no shared stage was ever paused: the test compared the drain with itself";
  EXPECT_EQ(paused_beside[0], 0) << "the drain's grants said workers were paused beside them";
  EXPECT_GT(paused_beside[1], 0) << "no timing grant told its worker of the paused workers it should expect";
}

// Issue 47: a timed worker still starting (before its first request for the GPU alone) pauses for
// another timed worker's window instead of being waited for; one whose start acknowledges the pause
// and keeps working is caught by its own report, forbidden, and the window it ran in timed again.
namespace {

struct StartingBeside {
  WorkerRun run;
  SharedPauseLink link;
  std::atomic<bool> starting_ended{false};
  bool granted_while_starting = false;
  std::string untrusted, starting_untrusted;
  double waited_seconds = 0;
};

// A timed worker starting for `setup_ms` (pausable, its start played with `pause_fault`), and
// another timed use asking for the GPU alone once it has started a while.
void time_beside_a_starting_timed_worker(const std::filesystem::path& dir, GpuGate& gate, StartingBeside& p,
                                         int setup_ms, const std::string& pause_fault) {
  std::thread starting([&] {
    WorkerLaunch launch = test::fake_worker_launch(kFakeWorker, dir / "jobs", 20s);
    TimedWorkerUse use(gate, false, &p.link);
    launch.exclusive_gpu = [&use] { use.become_exclusive(); };
    launch.shared_gpu_again = [&use] { use.become_shared(); };
    launch.paused_beside = [&use] { return use.paused_beside(); };
    launch.pause_link = &p.link;
    json job = {{"mode", "eval"}, {"phase", "timed"},     {"device", 0},
                {"ms", 50},       {"setup_ms", setup_ms}, {"call_ms", 5}};
    if (!pause_fault.empty()) job["pause_fault"] = pause_fault;
    p.run = run_worker(launch, job);
    p.starting_untrusted = use.end();
    p.starting_ended = true;
  });
  std::this_thread::sleep_for(300ms);  // the worker is in its start by now (its sandbox started)
  const auto t0 = std::chrono::steady_clock::now();
  {
    TimedWorkerUse use(gate);
    use.become_exclusive();
    p.waited_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    p.granted_while_starting = !p.starting_ended;
    std::this_thread::sleep_for(100ms);  // the timed samples
    p.untrusted = use.end();
  }
  starting.join();
}

}  // namespace

TEST(SharedPause, AStartingTimedWorkerPausesForAnotherTimedWorkersWindowInsteadOfBeingWaitedFor) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 5s);
  StartingBeside p;
  time_beside_a_starting_timed_worker(dir.path(), gate, p, 3000, "");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_TRUE(p.granted_while_starting) << "the timed use waited for the other timed worker's start";
  EXPECT_LT(p.waited_seconds, 2.0);
  EXPECT_EQ(p.untrusted, "");
  EXPECT_EQ(p.starting_untrusted, "");
  EXPECT_EQ(p.link.pauses(), 1);
  EXPECT_EQ(p.link.violation(), "");
  EXPECT_EQ(p.run.of_type("paused").size(), 1u);
  const auto s = gate.snapshot();
  EXPECT_EQ(s.paused_timed_starts, 1);
  EXPECT_EQ(s.untrusted_windows, 0);
  EXPECT_EQ(s.draining_on_timed_start_seconds, 0);
}

// The attack: candidate code of the starting timed worker (its warm-up calls run beside the other
// lanes) acknowledges the pause and keeps the GPU busy. Its own activity records catch it: the
// window is not trusted (the victim's timing is taken again) and the attacker is forbidden.
TEST(SharedPause, AStartingTimedWorkerThatAcknowledgesAndKeepsWorkingIsForbiddenAndTheWindowUntrusted) {
  test::TempDir dir("ptxbench-pause");
  FakeGpus gpus(dir.path());
  GpuGate gate(0, 20s, 5s);
  StartingBeside p;
  time_beside_a_starting_timed_worker(dir.path(), gate, p, 3000, "keeps_running");
  ASSERT_TRUE(p.run.done) << p.run.process.describe() << "\n" << p.run.output_tail();
  EXPECT_NE(p.untrusted.find("kept the GPU busy in the exclusive window: kernel 'spin' (candidate_call)"),
            std::string::npos)
      << p.untrusted;
  EXPECT_NE(p.link.violation().find("after it acknowledged the pause"), std::string::npos) << p.link.violation();
  EXPECT_EQ(gate.snapshot().untrusted_windows, 1);
}

// In the engine: the attacker's timed start is paused for the victim's window and keeps working;
// the attacker is forbidden at its first attempt, the victim timed again and judged as ever.
TEST(SharedPause, InTheEngineAStartingTimedWorkerThatKeepsWorkingIsForbiddenAndTheVictimTimedAgain) {
  test::TempDir dir("ptxbench-pause-engine");
  FakeGpus gpus(dir.path());
  const std::map<std::string, json> jobs = {
      {"attacker", {{"ms", 20}, {"setup_ms", 4000}, {"call_ms", 5}, {"start_pause_fault", "keeps_running"}}},
      {"victim", {{"ms", 20}, {"setup_ms", 600}, {"call_ms", 5}}}};
  const auto out = run_queue(dir.path(), jobs, true, /*pausable_timed_start=*/true);
  const JobOutcome& attacker = out.at("attacker");
  const JobOutcome& victim = out.at("victim");
  ASSERT_EQ(attacker.state, JobState::done) << attacker.reason;
  EXPECT_EQ(attacker.result.value("verdict", ""), "forbidden") << attacker.result.dump();
  EXPECT_NE(attacker.result.value("reason", "").find("after it acknowledged the pause"), std::string::npos)
      << attacker.result.dump();
  EXPECT_EQ(attacker.result.value("attempt", 0), 1) << "the attack was run again as an infra fault";
  ASSERT_EQ(victim.state, JobState::done) << victim.reason;
  EXPECT_EQ(victim.result.value("verdict", ""), "correct") << victim.result.dump();
  EXPECT_NE(victim.result.value("timing_taken_again", "").find("kept the GPU busy"), std::string::npos)
      << victim.result.dump();
  EXPECT_FALSE(victim.result.value("overlap", true)) << "the timing kept ran beside another worker's work";
}

// The same mixed queue with the timed workers' starts drained and paused: the same verdicts, no
// timing beside other work, and a start in fact paused.
TEST(SharedPause, InTheEngineHonestTimedStartPausesGiveTheVerdictsOfTheDrain) {
  std::map<std::string, json> jobs;
  for (int i = 0; i < 10; ++i) {
    json p = {{"ms", i % 3 == 0 ? 300 : 60}, {"setup_ms", i % 2 ? 900 : 150}, {"call_ms", 5}};
    if (i % 4 == 1) p["fault"] = "wrong";
    jobs["job-" + std::to_string(i)] = p;
  }
  std::map<std::string, std::string> verdicts[2];
  int start_pauses[2] = {0, 0};
  for (const bool pausable_start : {false, true}) {
    test::TempDir dir("ptxbench-pause-engine");
    FakeGpus gpus(dir.path());
    for (const auto& [id, o] : run_queue(dir.path(), jobs, true, pausable_start)) {
      ASSERT_EQ(o.state, JobState::done) << id << ": " << o.reason;
      verdicts[pausable_start][id] = o.result.value("verdict", "");
      EXPECT_FALSE(o.result.value("overlap", false)) << id << ": work ran while the GPU was timing";
      EXPECT_FALSE(o.result.contains("timing_taken_again")) << id << ": " << o.result.dump();
      start_pauses[pausable_start] += o.result.value("timed_start_pauses", 0);
    }
  }
  EXPECT_EQ(verdicts[0], verdicts[1]);
  EXPECT_EQ(start_pauses[0], 0);
  EXPECT_GT(start_pauses[1], 0) << "no timed worker's start was ever paused: the test compared the drain with itself";
}

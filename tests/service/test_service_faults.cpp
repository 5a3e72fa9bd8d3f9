// Fault injection on the service engine with a simulated GPU stage (ptxbench-fake-gpu-worker,
// real processes through the real worker client): over 1,200 jobs in process, a worker killed
// mid-stage, a sticky CUDA error, device OOM, a hung kernel, a throttling GPU, a persistent
// harness fault; then 2,000 jobs with the dispatcher and the whole harness killed -9 and started
// again. Every job must end (0 lost) with one stored record (0 duplicated), and every job a fault
// touched must have been re-run or ended as infra_error, with the reason kept.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "fault_mix.h"
#include "service/engine/service_engine.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";
const std::filesystem::path kHarness = std::filesystem::path(PTXBENCH_BIN_DIR) / "service_fault_harness";

using test::FakeGpus;

// Rows in the results table per job id, read straight from the database.
std::map<std::string, int> stored_records(const std::filesystem::path& db) {
  sqlite3* h = nullptr;
  std::map<std::string, int> out;
  if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT job_id, result_json FROM service_job_results", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const std::string id = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    json r = json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), nullptr, false);
    EXPECT_EQ(r.value("job", ""), id) << "a record stored under another job's id";
    ++out[id];
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// A field of a stored result (null for a job that ended as infra_error).
template <class T>
T field(const json& result, const char* key, T fallback) {
  return result.is_object() ? result.value(key, fallback) : fallback;
}

bool any_contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x.find(s) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " | ";
  return s;
}

// Every job ended, with exactly one record if done; returns the outcomes.
std::map<std::string, JobOutcome> check_accounted(SqliteJobQueue& q, const std::filesystem::path& db,
                                                  const std::vector<std::string>& ids) {
  std::map<std::string, JobOutcome> out;
  const auto records = stored_records(db);
  for (const auto& id : ids) {
    std::optional<JobOutcome> o;
    EXPECT_TRUE(q.outcome(id, &o).ok);
    if (!o) {
      ADD_FAILURE() << id << " was lost";
      continue;
    }
    EXPECT_TRUE(o->state == JobState::done || o->state == JobState::infra_error)
        << id << " is still " << to_string(o->state);
    const int n = records.count(id) ? records.at(id) : 0;
    EXPECT_EQ(n, o->state == JobState::done ? 1 : 0) << id << " has " << n << " records";
    EXPECT_FALSE(field(o->result, "overlap", false)) << id << ": a shared stage ran while the GPU was timing";
    out[id] = *o;
  }
  size_t total = 0;
  for (const auto& [id, n] : records) total += n;
  EXPECT_EQ(total, records.size());
  return out;
}

}  // namespace

TEST(ServiceFaults, InProcessEngineOver1200JobsWithEveryFaultKind) {
  test::TempDir dir("ptxbench-service-faults");
  FakeGpus gpus(dir.path());
  const auto db = dir.path() / "ptxbench.db";
  SqliteJobQueue q(db, {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  constexpr int kJobs = 1200;
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back("job-" + std::to_string(i));
    ASSERT_TRUE(q.enqueue(ids.back(), test::payload_of(i), nullptr).ok);
  }
  test::SimulatedExecutor executor(kFakeWorker, dir.path() / "jobs", 1000ms);
  ProcessHealthProbe probe(test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", std::chrono::seconds(10)));
  EngineOptions o;
  o.devices = {0, 1};
  o.shared_lanes = 3;
  o.cpu_jobs = 2;
  o.lease_ttl = 5s;
  o.heartbeat_interval = 500ms;
  o.idle_poll = 20ms;
  o.max_timing_wait = 20s;
  MonitorOptions m;
  m.recovery_interval = 50ms;
  std::vector<FaultRecord> faults;
  std::mutex faults_mu;
  ServiceEngine engine(q, executor, &probe, o, m, [&](const FaultRecord& f) {
    std::lock_guard lock(faults_mu);
    faults.push_back(f);
  });
  engine.start();
  engine.wait_until_drained();
  const json snapshot = engine.snapshot();
  engine.stop();

  auto outcomes = check_accounted(q, db, ids);
  ASSERT_EQ(outcomes.size(), static_cast<size_t>(kJobs));
  EXPECT_EQ(engine.counters().duplicate_results, 0);
  int reran = 0;
  for (int i = 0; i < kJobs; ++i) {
    const auto& o = outcomes.at(ids[i]);
    const std::string fault = test::fault_of(i);
    const std::string verdict = field(o.result, "verdict", std::string());
    SCOPED_TRACE(ids[i] + " (" + (fault.empty() ? "clean" : fault) + "): " + joined(o.failures) + o.reason);
    if (fault == "oom_always") {
      EXPECT_EQ(o.state, JobState::infra_error);
      EXPECT_NE(o.reason.find("out of memory"), std::string::npos);
      EXPECT_EQ(o.attempts, 3);
      continue;
    }
    ASSERT_EQ(o.state, JobState::done);
    if (fault == "killed" || fault == "sticky" || fault == "oom" || fault == "throttle") {
      EXPECT_GE(o.attempts, 2) << "an infra fault must re-run the job";
      const char* why = fault == "killed"   ? "SIGKILL"
                        : fault == "sticky" ? "health probe"
                        : fault == "oom"    ? "out of memory"
                                            : "throttled";
      EXPECT_TRUE(any_contains(o.failures, why));
      EXPECT_EQ(verdict, "correct");  // the re-run, on a healthy GPU, judged the candidate
      EXPECT_FALSE(field(o.result, "throttled", true));
      ++reran;
    } else if (fault == "hang") {
      if (o.failures.empty()) {
        EXPECT_EQ(verdict, "runtime_error");  // the candidate's hang: a verdict, the GPU probed healthy
        EXPECT_NE(field(o.result, "reason", std::string()).find("timeout"), std::string::npos);
      } else {
        // It hung while another job's fault made the GPU fail a probe: not trusted, so run again.
        EXPECT_TRUE(any_contains(o.failures, "health probe"));
      }
    } else if (fault == "wrong") {
      EXPECT_EQ(verdict, "incorrect");
    } else if (fault == "compile_error") {
      EXPECT_EQ(verdict, "compile_error");
      EXPECT_EQ(o.attempts, 1);
    } else {
      EXPECT_EQ(verdict, "correct");
    }
  }
  EXPECT_EQ(reran, 4 * kJobs / 100);
  // A timed stage waits after its grant only for a killed or hung stage's process still exiting.
  int settled = 0, killed_stages = 0;
  for (int i = 0; i < kJobs; ++i) {
    settled += field(outcomes.at(ids[i]).result, "settled_after_grant", false);
    killed_stages += test::fault_of(i) == "killed" || test::fault_of(i) == "hang";
  }
  EXPECT_LE(settled, killed_stages) << "timed stages granted while clean shared stages still ran";
  std::set<std::string> kinds;
  for (const auto& f : faults) kinds.insert(f.kind);
  for (const char* k : {"infra_fault", "unhealthy", "recovered", "timing_excluded"})
    EXPECT_TRUE(kinds.count(k)) << "no " << k << " fault recorded";
  for (const auto& g : snapshot.at("gpus")) {
    EXPECT_GT(g.at("busy_fraction").get<double>(), 0.0);
    EXPECT_LE(g.at("busy_fraction").get<double>(), 1.0);
  }
  for (const auto& h : snapshot.at("health")) EXPECT_GT(h.at("reference_calibration_ms").get<double>(), 0.0);
}

namespace {

pid_t spawn_harness(const std::filesystem::path& db, int enqueue, const std::string& prefix) {
  pid_t pid = fork();
  if (pid == 0) {
    const std::string n = std::to_string(enqueue);
    execl(kHarness.c_str(), kHarness.c_str(), "--db", db.c_str(), "--fake-worker", kFakeWorker.c_str(), "--enqueue",
          n.c_str(), "--prefix", prefix.c_str(), "--lease-ms", "800", "--ms", "20", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST(ServiceFaults, KillNineOfTheWholeHarnessAndOfTheDispatcherLosesAndDuplicatesNothing) {
  test::TempDir dir("ptxbench-service-kill9");
  FakeGpus gpus(dir.path());
  const auto db = dir.path() / "ptxbench.db";
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> when(150, 900);
  int kills = 0;

  // The whole harness (it submits, then serves), killed at random points and started again.
  constexpr int kJobs = 1000;
  for (int round = 0; round < 4; ++round) {
    pid_t pid = spawn_harness(db, kJobs, "whole");
    std::this_thread::sleep_for(std::chrono::milliseconds(when(rng)));
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_exit(pid), 128 + SIGKILL) << "the harness ended before it was killed (round " << round << ")";
    ++kills;
  }
  // The dispatcher alone, while this process is the submitter.
  SqliteJobQueue q(db, {.max_attempts = 4});
  ASSERT_TRUE(q.status().ok);
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back("whole-" + std::to_string(i));
    ids.push_back("submitted-" + std::to_string(i));
    ASSERT_TRUE(q.enqueue(ids.back(), test::payload_of(i, 20), nullptr).ok);
  }
  for (int round = 0; round < 3; ++round) {
    pid_t pid = spawn_harness(db, 0, "unused");
    std::this_thread::sleep_for(std::chrono::milliseconds(when(rng)));
    kill(pid, SIGKILL);
    wait_exit(pid);
    ++kills;
  }
  QueueCounts before;
  ASSERT_TRUE(q.counts(&before).ok);
  EXPECT_GT(before.queued + before.leased, 0) << "the kills came too late to interrupt anything";
  // Started again, the harness resumes (re-submitting is idempotent) and drains the queue.
  pid_t pid = spawn_harness(db, kJobs, "whole");
  ASSERT_EQ(wait_exit(pid), 0);

  auto outcomes = check_accounted(q, db, ids);
  ASSERT_EQ(outcomes.size(), ids.size());
  int interrupted = 0;
  for (const auto& [id, o] : outcomes) {
    const bool lease_died = any_contains(o.failures, "expired");
    if (lease_died) {
      ++interrupted;
      EXPECT_TRUE(o.state == JobState::done ? o.attempts >= 2 : !o.reason.empty()) << id;
    }
  }
  EXPECT_GT(interrupted, 0) << "no job was caught mid-flight by " << kills << " kills";
}

// The result channel between the harness and a (simulated) GPU stage, through the real worker
// client and the worker's sandbox: the fake worker signs with the worker's own channel code, and
// every way of breaking the channel is named, within the stage's deadline.
namespace {

WorkerRun run_fake(const std::filesystem::path& dir, const json& job, std::chrono::seconds timeout = 2s) {
  return run_worker(test::fake_worker_launch(kFakeWorker, dir / "jobs", timeout), job);
}

json shared_stage(const std::string& channel = "", const std::string& fault = "") {
  json j = {{"mode", "eval"},    {"accounting", false}, {"stream_discipline", false},
            {"phase", "shared"}, {"device", 0},         {"ms", 5}};
  if (!channel.empty()) j["channel"] = channel;
  if (!fault.empty()) j["fault"] = fault;
  return j;
}

}  // namespace

TEST(ServiceChannel, TheFakeWorkerSpeaksTheSignedProtocolInTheWorkersSandbox) {
  test::TempDir dir("ptxbench-service-channel");
  FakeGpus gpus(dir.path());
  WorkerRun run = run_fake(dir.path(), shared_stage());
  EXPECT_FALSE(run.tampered) << *run.tampered;
  EXPECT_TRUE(run.done) << run.process.describe() << "\n" << run.output_tail();
  ASSERT_TRUE(run.stage("correctness")) << run.process.result;
  EXPECT_EQ(run.stage("correctness")->value("status", ""), "ok");
  EXPECT_EQ(run.process.result.substr(64, 3), " 0 ") << "not a signed line: " << run.process.result;
  // Through the health probe's path too (its own job mode and event type).
  ProcessHealthProbe probe(test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s));
  const HealthReport h = probe.probe(1);
  EXPECT_TRUE(h.healthy) << h.reason;
  EXPECT_GT(h.calibration_ms, 0.0);
}

TEST(ServiceChannel, AWorkerKilledInsideTheSandboxIsSeenKilledByItsSignal) {
  test::TempDir dir("ptxbench-service-channel");
  FakeGpus gpus(dir.path());
  WorkerRun run = run_fake(dir.path(), shared_stage("", "killed"));
  EXPECT_FALSE(run.done);
  EXPECT_FALSE(run.process.timed_out);
  EXPECT_EQ(run.process.term_signal, SIGKILL) << run.process.describe() << " under " << run.sandbox.dump();
  EXPECT_FALSE(run.tampered) << *run.tampered;
}

TEST(ServiceChannel, EveryBrokenChannelIsNamedWithinTheStagesDeadline) {
  test::TempDir dir("ptxbench-service-channel");
  FakeGpus gpus(dir.path());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"unsigned", "does not start with an HMAC"},   {"garbage", "does not start with an HMAC"},
      {"bad_mac", "fails authentication"},           {"replay", "sequence number 0 where 1 was due"},
      {"bad_mac_then_hang", "fails authentication"}, {"unsigned_then_hang", "does not start with an HMAC"},
  };
  for (const auto& [kind, why] : cases) {
    SCOPED_TRACE(kind);
    const auto start = std::chrono::steady_clock::now();
    WorkerRun run = run_fake(dir.path(), shared_stage(kind), 2s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(run.tampered) << run.process.describe() << ": " << run.process.result;
    EXPECT_NE(run.tampered->find(why), std::string::npos) << *run.tampered;
    EXPECT_FALSE(run.done);
    EXPECT_EQ(run.process.timed_out, kind.ends_with("_then_hang")) << run.process.describe();
    EXPECT_LT(seconds, 2.0 + 5.0) << "the harness waited past the stage's deadline";
  }
}

// A worker stage whose channel does not verify is the candidate's `forbidden` (the Evaluator's
// verdict), a result like any other: the job ends, nothing waits for it.
TEST(ServiceFaults, AStageWhoseChannelDoesNotVerifyEndsItsJobAsForbidden) {
  test::TempDir dir("ptxbench-service-faults");
  FakeGpus gpus(dir.path());
  const auto db = dir.path() / "ptxbench.db";
  SqliteJobQueue q(db, {.max_attempts = 2});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  const std::vector<std::string> kinds = {"unsigned", "garbage", "bad_mac", "replay", "garbage_then_hang", ""};
  std::vector<std::string> ids;
  for (size_t i = 0; i < kinds.size(); ++i) {
    ids.push_back("channel-" + std::to_string(i));
    json p = {{"index", i}, {"ms", 2}};
    if (!kinds[i].empty()) p["channel"] = kinds[i];
    ASSERT_TRUE(q.enqueue(ids.back(), p, nullptr).ok);
  }
  test::SimulatedExecutor executor(kFakeWorker, dir.path() / "jobs", 1000ms);
  ProcessHealthProbe probe(test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s));
  EngineOptions o;
  o.devices = {0};
  o.idle_poll = 20ms;
  ServiceEngine engine(q, executor, &probe, o);
  engine.start();
  const bool drained = engine.wait_until_drained_for(60s);
  engine.stop();
  ASSERT_TRUE(drained) << "the engine still waits on a worker whose channel does not verify";
  auto outcomes = check_accounted(q, db, ids);
  for (size_t i = 0; i < kinds.size(); ++i) {
    const auto& o = outcomes.at(ids[i]);
    SCOPED_TRACE(ids[i] + " (" + kinds[i] + "): " + joined(o.failures) + o.reason);
    ASSERT_EQ(o.state, JobState::done);
    if (kinds[i].empty()) {
      EXPECT_EQ(field(o.result, "verdict", std::string()), "correct");
    } else {
      EXPECT_EQ(field(o.result, "verdict", std::string()), "forbidden");
      EXPECT_NE(field(o.result, "reason", std::string()).find("result channel"), std::string::npos);
    }
  }
}

// A health probe whose channel never verifies (one that speaks the unsigned protocol, a forged
// MAC, garbage and then a hang) can never find the GPU healthy: after its restarts the GPU is out
// of service, and with no GPU left the jobs that need one end as infra_error saying why, within
// a deadline, instead of waiting paused for ever. Jobs that need no GPU still get their verdict.
TEST(ServiceFaults, AProbeWhoseChannelNeverVerifiesEndsTheGpuJobsAsInfraErrorNotAHang) {
  for (const std::string kind : {"unsigned", "bad_mac", "garbage_then_hang"}) {
    SCOPED_TRACE(kind);
    test::TempDir dir("ptxbench-service-faults");
    FakeGpus gpus(dir.path());
    for (int d : {0, 1}) {
      std::filesystem::create_directories(dir.path() / "gpus" / ("gpu" + std::to_string(d)));
      std::ofstream(dir.path() / "gpus" / ("gpu" + std::to_string(d)) / "probe_channel") << kind;
    }
    const auto db = dir.path() / "ptxbench.db";
    SqliteJobQueue q(db, {.max_attempts = 2});
    ASSERT_TRUE(q.status().ok) << q.status().error;
    std::vector<std::string> ids;
    for (int i = 0; i < 12; ++i) {
      ids.push_back("job-" + std::to_string(i));
      ASSERT_TRUE(q.enqueue(ids.back(), test::payload_of(i), nullptr).ok);
    }
    test::SimulatedExecutor executor(kFakeWorker, dir.path() / "jobs", 1000ms);
    ProcessHealthProbe probe(test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 1s));
    EngineOptions o;
    o.devices = {0, 1};
    o.idle_poll = 20ms;
    MonitorOptions m;
    m.recovery_interval = 50ms;
    m.max_restarts = 3;
    std::vector<FaultRecord> faults;
    std::mutex faults_mu;
    ServiceEngine engine(q, executor, &probe, o, m, [&](const FaultRecord& f) {
      std::lock_guard lock(faults_mu);
      faults.push_back(f);
    });
    const auto start = std::chrono::steady_clock::now();
    engine.start();
    const bool drained = engine.wait_until_drained_for(60s);
    const json snapshot = engine.snapshot();
    engine.stop();
    ASSERT_TRUE(drained) << "the engine still holds jobs for GPUs whose probe can never pass: " << snapshot.dump();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60.0);
    auto outcomes = check_accounted(q, db, ids);
    for (int i = 0; i < 12; ++i) {
      const auto& o = outcomes.at(ids[i]);
      SCOPED_TRACE(ids[i] + ": " + joined(o.failures) + o.reason);
      if (test::fault_of(i) == "compile_error") {
        EXPECT_EQ(o.state, JobState::done);
        EXPECT_EQ(field(o.result, "verdict", std::string()), "compile_error");
        continue;
      }
      EXPECT_EQ(o.state, JobState::infra_error);
      EXPECT_NE(o.reason.find("no GPU is in service"), std::string::npos);
      EXPECT_NE(o.reason.find("result channel failed verification"), std::string::npos);
    }
    int out = 0;
    for (const auto& f : faults) out += f.kind == "out_of_service";
    EXPECT_EQ(out, 2) << "each GPU is taken out of service once";
    for (const auto& h : snapshot.at("health")) EXPECT_TRUE(h.value("out_of_service", false)) << h.dump();
  }
}

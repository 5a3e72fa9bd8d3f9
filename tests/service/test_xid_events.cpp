// Xid events and the reliability monitor, on the engine with a simulated GPU stage: a hardware
// Xid while a job runs makes its result untrusted (the job runs again, one record, the fault log
// names the Xid) and pauses the GPU until a probe finds it healthy; a program's own Xid (an
// illegal address) is recorded and changes nothing; the catalogue sorts the two apart.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "service/engine/service_engine.h"
#include "service/health/xid_catalog.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kFakeWorker = std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-fake-gpu-worker";

// Events the test fires by hand.
class ScriptedXidSource final : public XidSource {
 public:
  bool available() const override { return true; }
  std::string status() const override { return "scripted"; }
  std::optional<XidEvent> wait(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return std::nullopt;
    XidEvent e = events_.front();
    events_.pop_front();
    return e;
  }
  void fire(XidEvent e) {
    {
      std::lock_guard lock(mu_);
      events_.push_back(e);
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<XidEvent> events_;
};

// The job a lane of the engine runs, other than `except`; empty after 60 s. (Which job the lane
// takes first depends on which CPU thread prepared it first.)
std::string wait_until_running(const ServiceEngine& engine, const std::string& except = "") {
  for (int i = 0; i < 6000; ++i) {
    const json lanes = engine.snapshot()["lanes"];
    for (const auto& [lane, state] : lanes.items()) {
      const std::string s = state.is_string() ? state.get<std::string>() : "";
      if (s.rfind("running ", 0) == 0 && s.substr(8) != except) return s.substr(8);
    }
    std::this_thread::sleep_for(10ms);
  }
  return {};
}

std::vector<json> faults_of_kind(const ServiceEngine& engine, const std::string& kind) {
  std::vector<json> out;
  const json faults = engine.snapshot()["recent_faults"];
  for (const auto& f : faults)
    if (f.value("kind", "") == kind) out.push_back(f);
  return out;
}

}  // namespace

TEST(XidCatalog, SortsAProgramsOwnFaultsFromTheGpusFailures) {
  EXPECT_EQ(classify_xid(31).cls, XidClass::application);  // an illegal address
  EXPECT_EQ(classify_xid(13).cls, XidClass::application);
  EXPECT_EQ(classify_xid(43).cls, XidClass::application);
  EXPECT_EQ(classify_xid(79).cls, XidClass::hardware);  // off the bus
  EXPECT_EQ(classify_xid(48).cls, XidClass::hardware);  // double-bit ECC
  EXPECT_EQ(classify_xid(94).cls, XidClass::hardware);
  EXPECT_EQ(classify_xid(119).cls, XidClass::hardware);
  EXPECT_EQ(classify_xid(999).cls, XidClass::unknown);
  EXPECT_EQ(classify_xid(12345).cls, XidClass::unknown);
}

TEST(XidEvents, AHardwareXidDuringAJobReRunsItAndAProgramsOwnXidChangesNothing) {
  test::TempDir dir("ptxbench-xid");
  setenv("PTXBENCH_FAKE_GPU_STATE", (dir.path() / "gpus").c_str(), 1);
  const auto db = dir.path() / "ptxbench.db";
  SqliteJobQueue q(db, {.max_attempts = 3});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  const std::vector<std::string> ids = {"xid-0", "xid-1", "xid-2"};
  for (const auto& id : ids) ASSERT_TRUE(q.enqueue(id, {{"index", 0}, {"ms", 1500}}, nullptr).ok);
  test::SimulatedExecutor executor(kFakeWorker, dir.path() / "jobs", 10000ms);
  ProcessHealthProbe probe(test::fake_worker_launch(kFakeWorker, dir.path() / "jobs", 10s));
  EngineOptions o;
  o.devices = {0};
  o.shared_lanes = 1;  // one job at a time: the Xid lands in exactly one job
  o.idle_poll = 20ms;
  MonitorOptions m = test::simulated_monitor_options();
  auto xid = std::make_shared<ScriptedXidSource>();
  m.xid_source = xid;
  ServiceEngine engine(q, executor, &probe, o, m);
  engine.start();

  const std::string victim_id = wait_until_running(engine);
  ASSERT_FALSE(victim_id.empty()) << engine.snapshot().dump(2);
  xid->fire({0, 79, false});
  const std::string app_id = wait_until_running(engine, victim_id);
  ASSERT_FALSE(app_id.empty()) << engine.snapshot().dump(2);
  xid->fire({0, 31, false});
  xid->fire({3, 48, false});  // a GPU this engine does not use
  const bool drained = engine.wait_until_drained_for(60s);
  const json health = engine.snapshot()["health"];
  const auto xids = faults_of_kind(engine, "xid");
  const auto recovered = faults_of_kind(engine, "recovered");
  engine.stop();
  ASSERT_TRUE(drained);

  std::string after_id;
  for (const auto& id : ids)
    if (id != victim_id && id != app_id) after_id = id;
  std::optional<JobOutcome> victim, app, after;
  ASSERT_TRUE(q.outcome(victim_id, &victim).ok && victim);
  ASSERT_TRUE(q.outcome(app_id, &app).ok && app);
  ASSERT_TRUE(q.outcome(after_id, &after).ok && after);
  // The job running when the GPU failed ran again and then got its verdict.
  EXPECT_EQ(victim->state, JobState::done);
  EXPECT_EQ(victim->attempts, 2);
  ASSERT_FALSE(victim->failures.empty());
  EXPECT_NE(victim->failures.front().find("Xid 79"), std::string::npos) << victim->failures.front();
  EXPECT_EQ(victim->result.value("verdict", ""), "correct");
  // A program's own Xid is not the GPU's failure: that job ran once.
  EXPECT_EQ(app->state, JobState::done);
  EXPECT_EQ(app->attempts, 1);
  EXPECT_EQ(after->attempts, 1);
  ASSERT_EQ(xids.size(), 3u);
  EXPECT_NE(xids[0].value("reason", "").find("hardware"), std::string::npos) << xids[0].dump();
  EXPECT_NE(xids[1].value("reason", "").find("stays in service"), std::string::npos) << xids[1].dump();
  EXPECT_NE(xids[2].value("reason", "").find("does not use"), std::string::npos) << xids[2].dump();
  EXPECT_FALSE(recovered.empty()) << "the GPU was not probed healthy again after the Xid";
  ASSERT_EQ(health.size(), 1u);
  EXPECT_TRUE(health[0].value("healthy", false)) << health[0].dump();
  EXPECT_EQ(health[0].value("hardware_faults", 0), 1);
  EXPECT_EQ(health[0].value("xid_events", 0), 2);
  EXPECT_EQ(health[0].value("xid_watch", ""), "scripted");
}

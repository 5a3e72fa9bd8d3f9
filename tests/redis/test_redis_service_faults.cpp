// The service across processes through Redis, with the simulated GPU stage of tests/service:
// 1,000 jobs of the fault mix from a submitter process to 4 worker processes (2 simulated GPUs
// each), while workers and the submitter are killed -9 at random points and started again, Redis
// is killed -9 and restarted on its AOF, and a worker is stopped (SIGSTOP) past its leases and
// then resumed: 0 jobs lost, 0 duplicated records, every job accounted for. Then workers in
// network namespaces of their own (veth pairs on a bridge, a private subnet, made and removed
// here) reach Redis only across that network.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>

#include "fault_checks.h"
#include "fault_processes.h"
#include "redis_server.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

constexpr int kLeaseMs = 1500;
// Long enough that the faults below land while most of the 1,000 jobs are still to run.
constexpr int kStageMs = 60;

bool any_failure_contains(const JobOutcome& o, const std::string& s) {
  for (const auto& f : o.failures)
    if (f.find(s) != std::string::npos) return true;
  return o.reason.find(s) != std::string::npos;
}

}  // namespace

TEST(RedisServiceFaults, FourWorkersAndASubmitterSurviveKillNineRedisRestartAndAStalledWorker) {
  if (test::redis_server_binary().empty())
    GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  test::TempDir dir("ptxbench-redis-faults");
  test::RedisServer redis(dir.path() / "redis");
  const std::string url = redis.url("faults");
  const auto stored_log = dir.path() / "stored.log", submitter_db = dir.path() / "submitter.db";
  constexpr int kJobs = 1000;
  std::mt19937 rng(20261201);
  auto pause = [&](int lo, int hi) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(lo, hi)(rng)));
  };

  pid_t submitter = test::spawn_submitter(url, kJobs, "job", submitter_db, kStageMs);
  std::vector<pid_t> workers;
  for (int w = 0; w < 4; ++w)
    workers.push_back(test::spawn_worker(url, dir.path() / ("w" + std::to_string(w)), stored_log, kLeaseMs));
  auto restart_worker = [&](int w) {
    test::kill_nine(workers[w]);
    workers[w] = test::spawn_worker(url, dir.path() / ("w" + std::to_string(w)), stored_log, kLeaseMs);
  };
  RedisJobQueue q(parse_redis_url(url), {.max_attempts = 5});
  ASSERT_TRUE(q.status().ok) << q.status().error;
  auto progress = [&] {
    QueueCounts c;
    EXPECT_TRUE(q.counts(&c).ok);
    return c;
  };

  // The submitter dies twice while submitting or collecting.
  pause(150, 400);
  test::kill_nine(submitter);
  submitter = test::spawn_submitter(url, kJobs, "job", submitter_db, kStageMs);
  pause(300, 900);
  restart_worker(0);
  pause(300, 900);
  test::kill_nine(submitter);
  submitter = test::spawn_submitter(url, kJobs, "job", submitter_db, kStageMs);
  // A worker stalls past its leases (SIGSTOP), then comes back with stale leases.
  const pid_t stalled = workers[1];
  kill(stalled, SIGSTOP);
  pause(300, 600);
  restart_worker(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * kLeaseMs));
  kill(stalled, SIGCONT);
  // Redis dies mid-run and comes back on its AOF.
  const QueueCounts before_redis = progress();
  EXPECT_GT(before_redis.done, 0);
  EXPECT_GT(before_redis.queued + before_redis.leased, 0) << "the run ended before Redis was killed";
  redis.kill_nine();
  pause(500, 1000);
  redis.start();
  pause(300, 900);
  restart_worker(3);
  pause(300, 900);
  restart_worker(0);
  const QueueCounts before_end = progress();
  EXPECT_GT(before_end.queued + before_end.leased, 0) << "the kills came too late to interrupt anything";

  ASSERT_EQ(test::wait_for(submitter, 150s), 0) << "the submitter did not collect every job";
  for (pid_t w : workers) test::kill_nine(w);

  auto tally = test::check_every_job_accounted(q, "job", kJobs, submitter_db, stored_log);
  int interrupted = 0, stalled_lost = 0;
  const std::string stalled_owner = ":" + std::to_string(stalled) + ":";
  for (const auto& [id, o] : tally.outcomes) {
    if (any_failure_contains(o, "expired")) ++interrupted;
    if (any_failure_contains(o, stalled_owner)) ++stalled_lost;
  }
  EXPECT_GT(interrupted, 0) << "no job was caught mid-flight by the kills";
  EXPECT_GT(stalled_lost, 0) << "the stalled worker's leases were never taken over";
}

namespace {

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

// Two network namespaces joined to this one by veth pairs on a bridge: 10.213.N.1 here, .2 and
// .3 inside. Removed (namespaces, links) on scope exit.
struct PrivateNetwork {
  std::string tag, bridge, subnet;
  std::vector<std::string> namespaces;
  std::string error;
  PrivateNetwork() {
    tag = std::to_string(getpid() % 100000);
    bridge = "pxbr" + tag;
    subnet = "10.213." + std::to_string(getpid() % 250 + 1);
    if (sh("ip link add " + bridge + " type bridge") != 0) {
      error = "cannot create a bridge (no CAP_NET_ADMIN?)";
      return;
    }
    sh("ip addr add " + subnet + ".1/24 dev " + bridge);
    sh("ip link set " + bridge + " up");
    for (int i = 0; i < 2; ++i) {
      const std::string ns = "pxns" + tag + "-" + std::to_string(i);
      const std::string host_end = "pxh" + tag + std::to_string(i), ns_end = "pxn" + tag + std::to_string(i);
      if (sh("ip netns add " + ns) != 0) {
        error = "ip netns add failed (no CAP_NET_ADMIN?)";
        return;
      }
      namespaces.push_back(ns);
      const std::string addr = subnet + "." + std::to_string(i + 2) + "/24";
      for (const std::string& c :
           {"ip link add " + host_end + " type veth peer name " + ns_end, "ip link set " + ns_end + " netns " + ns,
            "ip link set " + host_end + " master " + bridge, "ip link set " + host_end + " up",
            "ip netns exec " + ns + " ip addr add " + addr + " dev " + ns_end,
            "ip netns exec " + ns + " ip link set " + ns_end + " up", "ip netns exec " + ns + " ip link set lo up"})
        if (sh(c) != 0) {
          error = "'" + c + "' failed";
          return;
        }
    }
  }
  ~PrivateNetwork() {
    for (const auto& ns : namespaces) sh("ip netns del " + ns);
    sh("ip link del " + bridge);
  }
  std::string redis_address() const { return subnet + ".1"; }
};

}  // namespace

TEST(RedisServiceFaults, WorkersInTheirOwnNetworkNamespacesReachRedisAcrossAVethNetwork) {
  if (test::redis_server_binary().empty())
    GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  if (getuid() != 0 || access("/usr/sbin/ip", X_OK) != 0)
    GTEST_SKIP() << "needs root (CAP_NET_ADMIN) and iproute2 for ip netns";
  PrivateNetwork net;
  if (!net.error.empty()) GTEST_SKIP() << "no private network for the test: " << net.error;
  test::TempDir dir("ptxbench-redis-netns");
  test::RedisServer redis(dir.path() / "redis", net.redis_address());
  const std::string url = redis.url("netns");
  // Inside a namespace Redis is not on loopback: the only way to it is the veth network.
  EXPECT_NE(sh("ip netns exec " + net.namespaces[0] + " bash -c 'echo > /dev/tcp/127.0.0.1/" +
               std::to_string(redis.port()) + "'"),
            0);
  EXPECT_EQ(sh("ip netns exec " + net.namespaces[0] + " bash -c 'echo > /dev/tcp/" + net.redis_address() + "/" +
               std::to_string(redis.port()) + "'"),
            0);
  const auto stored_log = dir.path() / "stored.log", submitter_db = dir.path() / "submitter.db";
  std::vector<pid_t> workers;
  for (int w = 0; w < 2; ++w)
    workers.push_back(
        test::spawn_worker(url, dir.path() / ("w" + std::to_string(w)), stored_log, kLeaseMs, net.namespaces[w]));
  constexpr int kJobs = 200;
  pid_t submitter = test::spawn_submitter(url, kJobs, "net", submitter_db, 10);
  const int rc = test::wait_for(submitter, 90s);
  if (rc != 0) test::kill_nine(submitter);
  std::vector<json> published;
  RedisJobQueue q(parse_redis_url(url), {.max_attempts = 5});
  ASSERT_TRUE(q.workers(&published).ok);
  for (pid_t w : workers) test::kill_nine(w);
  ASSERT_EQ(rc, 0) << "the submitter did not collect every job";
  auto tally = test::check_every_job_accounted(q, "net", kJobs, submitter_db, stored_log);
  // Both namespaced workers stored results, and both published their state through Redis.
  std::set<std::string> pids;
  for (const auto& [id, owners] : tally.storing_owners)
    for (const auto& o : owners) pids.insert(o.substr(o.find(':') + 1, o.find(':', o.find(':') + 1) - o.find(':') - 1));
  for (pid_t w : workers) EXPECT_TRUE(pids.count(std::to_string(w))) << "worker " << w << " stored nothing";
  EXPECT_EQ(published.size(), 2u);
}

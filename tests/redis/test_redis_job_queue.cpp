// The Redis Streams JobQueue against a real redis-server (tests/redis/redis_server.h): the same
// contract as the SQLite lease table (idempotent ids, leases kept alive by heartbeats, a killed
// owner's job taken over after its lease, one stored record per job, the attempts bound ending in
// infra_error), plus what only a network queue has: the results stream, a Redis killed -9 and
// restarted under a live queue object (AOF), a clear error when Redis is unreachable, and the
// --queue URL's validation.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "core/error.h"
#include "redis_server.h"
#include "service/queue/queue_factory.h"
#include "service/queue/redis_job_queue.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

class RedisQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::redis_server_binary().empty())
      GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
    server_ = std::make_unique<test::RedisServer>(dir_.path() / "redis");
  }
  RedisEndpoint endpoint() const { return parse_redis_url(server_->url()); }
  std::unique_ptr<RedisJobQueue> open(int max_attempts = 3) {
    auto q = std::make_unique<RedisJobQueue>(endpoint(), RedisQueueOptions{.max_attempts = max_attempts});
    EXPECT_TRUE(q->status().ok) << q->status().error;
    return q;
  }
  // A raw command on a connection of its own, to look at what the queue wrote.
  long long raw_integer(const std::vector<std::string>& args) {
    RedisConnection c(endpoint(), {});
    RedisResult r = c.command(args);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.ok() && r.reply->type == REDIS_REPLY_INTEGER ? r.reply->integer : -1;
  }
  test::TempDir dir_{"ptxbench-redis-queue"};
  std::unique_ptr<test::RedisServer> server_;
};

std::optional<LeasedJob> lease(JobQueue& q, const std::string& owner, std::chrono::milliseconds ttl = 60s) {
  std::optional<LeasedJob> job;
  auto s = q.lease(owner, ttl, &job);
  EXPECT_TRUE(s.ok) << s.error;
  return job;
}

}  // namespace

TEST(RedisUrl, ParsesHostPortDatabaseAndStream) {
  auto e = parse_redis_url("redis://10.0.0.5:6380/2?stream=ablation");
  EXPECT_EQ(e.host, "10.0.0.5");
  EXPECT_EQ(e.port, 6380);
  EXPECT_EQ(e.db, 2);
  EXPECT_EQ(e.stream, "ablation");
  auto d = parse_redis_url("redis://queue-host");
  EXPECT_EQ(d.host, "queue-host");
  EXPECT_EQ(d.port, 6379);
  EXPECT_EQ(d.db, 0);
  EXPECT_EQ(d.stream, "ptxbench");
  EXPECT_EQ(parse_redis_url("redis://[fd00::1]:7000/").host, "fd00::1");
  EXPECT_EQ(parse_redis_url("redis://[fd00::1]:7000/").port, 7000);
  EXPECT_EQ(d.url(), "redis://queue-host:6379/0?stream=ptxbench");
}

TEST(RedisUrl, RejectsMalformedUrlsSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://host:6379", "not a redis:// URL"},
      {"redis://:6379/0", "no host"},
      {"redis://host:port/0", "port 'port'"},
      {"redis://host:70000", "port '70000'"},
      {"redis://host:", "port ''"},
      {"redis://host:6379/16", "database number '16'"},
      {"redis://host:6379/x", "database number 'x'"},
      {"redis://user:pw@host:6379", "credentials"},
      {"redis://host:6379/0?stream=a b", "stream name 'a b'"},
      {"redis://host:6379/0?stream=", "stream name ''"},
      {"redis://host:6379/0?db=1", "unknown parameter 'db'"},
      {"redis://[fd00::1:6379", "unclosed '['"},
  };
  for (const auto& [url, why] : cases) {
    try {
      parse_redis_url(url);
      ADD_FAILURE() << url << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << url << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("expected redis://HOST:PORT"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(open_job_queue({.spec = "redis:/host"}), InputError);
}

TEST(RedisJobQueueUnreachable, SaysRedisIsUnreachableAfterTheRetryBudget) {
  const int port = test::free_tcp_port();  // nothing listens there
  RedisQueueOptions o;
  o.connection.retry_budget = 600ms;
  const auto t0 = std::chrono::steady_clock::now();
  RedisJobQueue q(parse_redis_url("redis://127.0.0.1:" + std::to_string(port)), o);
  const auto spent = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(q.status().ok);
  EXPECT_NE(q.status().error.find("Redis at redis://127.0.0.1:" + std::to_string(port)), std::string::npos)
      << q.status().error;
  EXPECT_NE(q.status().error.find("unreachable"), std::string::npos) << q.status().error;
  EXPECT_NE(q.status().error.find("attempt(s)"), std::string::npos) << q.status().error;
  EXPECT_GE(spent, 300ms) << "no backoff before giving up";
  EXPECT_LT(spent, 5s);
  std::optional<LeasedJob> job;
  EXPECT_FALSE(q.lease("w", 1s, &job).ok);
  try {
    open_job_queue({.spec = "redis://127.0.0.1:" + std::to_string(port), .redis_retry_budget = 300ms});
    ADD_FAILURE() << "opened a queue on a port nothing listens on";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unreachable"), std::string::npos) << e.what();
  }
}

TEST_F(RedisQueueTest, EnqueueIsIdempotentOnTheJobIdAndLeasesInOrder) {
  auto q = open();
  bool inserted = false;
  ASSERT_TRUE(q->enqueue("a", {{"n", 1}}, &inserted).ok);
  EXPECT_TRUE(inserted);
  ASSERT_TRUE(q->enqueue("a", {{"n", 2}}, &inserted).ok);
  EXPECT_FALSE(inserted);
  ASSERT_TRUE(q->enqueue("b", {{"n", 3}}, &inserted).ok);
  QueueCounts c;
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.queued, 2);
  auto a = lease(*q, "worker-0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "a");
  EXPECT_EQ(a->payload.at("n"), 1);  // the first payload stays
  EXPECT_EQ(a->attempts, 1);
  EXPECT_EQ(lease(*q, "worker-1")->id, "b");
  EXPECT_FALSE(lease(*q, "worker-2"));
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.queued, 0);
  EXPECT_EQ(c.leased, 2);
  EXPECT_EQ(raw_integer({"XLEN", "{ptxbench}:jobs"}), 2);  // jobs are entries of the stream
}

TEST_F(RedisQueueTest, PayloadIsTheFirstEnqueuedOneAndEmptyForAnUnknownJob) {
  auto q = open();
  bool inserted = false;
  ASSERT_TRUE(q->enqueue("a", {{"n", 1}}, &inserted).ok);
  ASSERT_TRUE(q->enqueue("a", {{"n", 2}}, &inserted).ok);
  std::optional<json> p;
  ASSERT_TRUE(q->payload("a", &p).ok);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("n"), 1);
  ASSERT_TRUE(q->payload("missing", &p).ok);
  EXPECT_FALSE(p);
}

TEST_F(RedisQueueTest, HeartbeatsKeepALeaseThatWouldOtherwiseBeTakenOver) {
  auto q = open();
  ASSERT_TRUE(q->enqueue("first", json::object(), nullptr).ok);
  ASSERT_TRUE(q->enqueue("second", json::object(), nullptr).ok);
  auto a = lease(*q, "lane-0", 300ms);
  ASSERT_TRUE(a);
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(150ms);
    bool held = false;
    ASSERT_TRUE(q->heartbeat("first", "lane-0", 300ms, &held).ok);
    EXPECT_TRUE(held);
  }
  auto b = lease(*q, "lane-1", 300ms);  // XAUTOCLAIM with a 300 ms idle floor leaves "first" alone
  ASSERT_TRUE(b);
  EXPECT_EQ(b->id, "second");
  bool held = true;
  ASSERT_TRUE(q->heartbeat("first", "lane-9", 300ms, &held).ok);
  EXPECT_FALSE(held);  // not the owner
}

TEST_F(RedisQueueTest, AJobOfAKilledWorkerIsClaimedAfterItsLeaseWithTheReason) {
  {
    auto q = open();
    ASSERT_TRUE(q->enqueue("job-1", {{"candidate", "x"}}, nullptr).ok);
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RedisJobQueue q(endpoint());
    std::optional<LeasedJob> job;
    if (!q.lease("doomed-worker", 400ms, &job).ok || !job) _exit(3);
    kill(getpid(), SIGKILL);  // dies holding the lease
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child did not take the lease";
  auto q = open();
  QueueCounts c;
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.leased, 1);
  EXPECT_FALSE(lease(*q, "survivor", 400ms));  // the lease still holds
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.expired_leases, 1);
  auto job = lease(*q, "survivor", 400ms);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id, "job-1");
  EXPECT_EQ(job->attempts, 2);  // the stream entry's delivery count
  bool stored = false;
  ASSERT_TRUE(q->complete("job-1", "survivor", {{"verdict", "correct"}}, &stored).ok);
  EXPECT_TRUE(stored);
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q->outcome("job-1", &o).ok);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->state, JobState::done);
  ASSERT_EQ(o->failures.size(), 1u);
  EXPECT_NE(o->failures[0].find("doomed-worker"), std::string::npos) << o->failures[0];
  EXPECT_EQ(raw_integer({"XLEN", "{ptxbench}:jobs"}), 0);  // acknowledged and gone from the stream
}

TEST_F(RedisQueueTest, ARedeliveredJobNeverProducesASecondRecord) {
  auto q = open();
  ASSERT_TRUE(q->enqueue("j", json::object(), nullptr).ok);
  auto stale = lease(*q, "slow-worker", 100ms);
  ASSERT_TRUE(stale);
  std::this_thread::sleep_for(150ms);
  auto fresh = lease(*q, "fast-worker");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->id, "j");
  bool stored = false;
  ASSERT_TRUE(q->complete("j", "fast-worker", {{"by", "fast"}}, &stored).ok);
  EXPECT_TRUE(stored);
  ASSERT_TRUE(q->complete("j", "slow-worker", {{"by", "slow"}}, &stored).ok);
  EXPECT_FALSE(stored);
  ASSERT_TRUE(q->complete("j", "fast-worker", {{"by", "again"}}, &stored).ok);
  EXPECT_FALSE(stored);
  bool requeued = true;
  ASSERT_TRUE(q->fail("j", "fast-worker", "late failure", &requeued).ok);
  EXPECT_FALSE(requeued);
  bool inserted = true;
  ASSERT_TRUE(q->enqueue("j", json::object(), &inserted).ok);  // a resubmission changes nothing
  EXPECT_FALSE(inserted);
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q->outcome("j", &o).ok);
  EXPECT_EQ(o->state, JobState::done);
  EXPECT_EQ(o->result.at("by"), "fast");
  EXPECT_FALSE(lease(*q, "anyone"));
  EXPECT_EQ(raw_integer({"HLEN", "{ptxbench}:results"}), 1);
  QueueCounts c;
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.total(), 1);
  std::optional<JobOutcome> none;
  ASSERT_TRUE(q->outcome("never-queued", &none).ok);
  EXPECT_FALSE(none);
  EXPECT_FALSE(q->complete("never-queued", "w", json::object(), &stored).ok);
}

TEST_F(RedisQueueTest, FailuresRequeueUntilTheDeliveryBoundThenInfraErrorOnTheResultsStream) {
  auto q = open(3);
  ASSERT_TRUE(q->enqueue("flaky", json::object(), nullptr).ok);
  ASSERT_TRUE(q->enqueue("fine", json::object(), nullptr).ok);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto job = lease(*q, "w");
    ASSERT_TRUE(job);
    ASSERT_EQ(job->id, "flaky") << "a requeued job goes before new ones";
    EXPECT_EQ(job->attempts, attempt);
    bool requeued = false;
    ASSERT_TRUE(q->fail("flaky", "w", "oom " + std::to_string(attempt), &requeued).ok);
    EXPECT_EQ(requeued, attempt < 3);
    bool ignored = true;
    ASSERT_TRUE(q->fail("flaky", "w", "twice", &ignored).ok);  // no longer held: ignored
    EXPECT_FALSE(ignored);
  }
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q->outcome("flaky", &o).ok);
  EXPECT_EQ(o->state, JobState::infra_error);
  EXPECT_EQ(o->attempts, 3);
  EXPECT_NE(o->reason.find("infra_error after 3 attempt(s); last: oom 3"), std::string::npos) << o->reason;
  EXPECT_EQ(o->failures, (std::vector<std::string>{"oom 1", "oom 2", "oom 3"}));
  auto fine = lease(*q, "w");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->id, "fine");
  ASSERT_TRUE(q->complete("fine", "w", {{"ok", true}}, nullptr).ok);

  RedisJobQueue reader(endpoint());
  std::string cursor;
  std::vector<std::string> ids;
  ASSERT_TRUE(reader.read_finished(&cursor, 500ms, &ids).ok);
  EXPECT_EQ(ids, (std::vector<std::string>{"flaky", "fine"}));
  ASSERT_TRUE(reader.read_finished(&cursor, 100ms, &ids).ok);
  EXPECT_TRUE(ids.empty()) << "the cursor moved past what was read";
  QueueCounts c;
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.infra_error, 1);
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.total(), 2);
}

TEST_F(RedisQueueTest, ReclaimExpiredRequeuesOrEndsLeasesPastTheirExpiry) {
  auto q = open(1);
  ASSERT_TRUE(q->enqueue("once", json::object(), nullptr).ok);
  ASSERT_TRUE(lease(*q, "w", 50ms));
  std::this_thread::sleep_for(100ms);
  int n = 0;
  ASSERT_TRUE(q->reclaim_expired(&n).ok);
  EXPECT_EQ(n, 1);
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q->outcome("once", &o).ok);
  EXPECT_EQ(o->state, JobState::infra_error);  // one attempt allowed
  EXPECT_NE(o->reason.find("the lease of w expired"), std::string::npos) << o->reason;
}

TEST_F(RedisQueueTest, AQueueObjectSurvivesRedisKilledAndRestartedWithItsAof) {
  auto q = open();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(q->enqueue("j" + std::to_string(i), {{"i", i}}, nullptr).ok);
  auto held = lease(*q, "w", 30s);
  ASSERT_TRUE(held);
  ASSERT_TRUE(q->complete(held->id, "w", {{"i", 0}}, nullptr).ok);
  auto second = lease(*q, "w", 30s);
  ASSERT_TRUE(second);
  server_->kill_nine();
  std::thread restart([&] {
    std::this_thread::sleep_for(700ms);
    server_->start();
  });
  // The call made while Redis is down waits (reconnecting with backoff) and then succeeds.
  bool stored = false;
  auto s = q->complete(second->id, "w", {{"i", 1}}, &stored);
  restart.join();
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_TRUE(stored);
  EXPECT_GE(q->reconnects(), 1);
  QueueCounts c;
  ASSERT_TRUE(q->counts(&c).ok);
  EXPECT_EQ(c.done, 2);
  EXPECT_EQ(c.queued, 18);  // everything acknowledged before the kill is still there (AOF, fsync always)
  auto next = lease(*q, "w");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, "j2");
}

TEST_F(RedisQueueTest, PublishedWorkersAreListedUntilTheyStopPublishing) {
  auto q = open();
  ASSERT_TRUE(q->publish_worker("gpu-host-a:1", {{"owner", "gpu-host-a:1"}, {"gpus", json::array()}}, 10s).ok);
  ASSERT_TRUE(q->publish_worker("gpu-host-b:2", {{"owner", "gpu-host-b:2"}}, 150ms).ok);
  std::vector<json> w;
  ASSERT_TRUE(q->workers(&w).ok);
  EXPECT_EQ(w.size(), 2u);
  std::this_thread::sleep_for(250ms);
  ASSERT_TRUE(q->workers(&w).ok);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].at("owner"), "gpu-host-a:1");
}

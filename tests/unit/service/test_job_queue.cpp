// The SQLite lease table: idempotent ids, leases that expire when their owner dies (a forked
// process killed with SIGKILL while holding one), exactly one stored result per job, and the
// attempts bound that ends a job as infra_error with its reason.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "service/queue/sqlite_job_queue.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

// A database in a fresh directory, removed at scope exit.
struct QueueDb {
  test::TempDir dir{"ptxbench-queue"};
  std::filesystem::path path() const { return dir.path() / "ptxbench.db"; }
};

std::optional<LeasedJob> lease(SqliteJobQueue& q, const std::string& owner, std::chrono::milliseconds ttl = 60s) {
  std::optional<LeasedJob> job;
  auto s = q.lease(owner, ttl, &job);
  EXPECT_TRUE(s.ok) << s.error;
  return job;
}

}  // namespace

// The reward API holds a second submission under a key against the stored payload.
TEST(SqliteJobQueue, PayloadIsTheFirstEnqueuedOneAndEmptyForAnUnknownJob) {
  QueueDb tmp;
  SqliteJobQueue q(tmp.path());
  ASSERT_TRUE(q.status().ok) << q.status().error;
  bool inserted = false;
  ASSERT_TRUE(q.enqueue("a", {{"n", 1}}, &inserted).ok);
  ASSERT_TRUE(q.enqueue("a", {{"n", 2}}, &inserted).ok);
  std::optional<json> p;
  ASSERT_TRUE(q.payload("a", &p).ok);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("n"), 1);
  ASSERT_TRUE(q.payload("missing", &p).ok);
  EXPECT_FALSE(p);
}

TEST(SqliteJobQueue, EnqueueIsIdempotentOnTheJobId) {
  QueueDb tmp;
  SqliteJobQueue q(tmp.path());
  ASSERT_TRUE(q.status().ok) << q.status().error;
  bool inserted = false;
  ASSERT_TRUE(q.enqueue("a", {{"n", 1}}, &inserted).ok);
  EXPECT_TRUE(inserted);
  ASSERT_TRUE(q.enqueue("a", {{"n", 2}}, &inserted).ok);
  EXPECT_FALSE(inserted);
  QueueCounts c;
  ASSERT_TRUE(q.counts(&c).ok);
  EXPECT_EQ(c.queued, 1);
  auto job = lease(q, "lane-0");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->payload.at("n"), 1);  // the first payload stays
  EXPECT_EQ(job->attempts, 1);
  EXPECT_FALSE(lease(q, "lane-1"));  // nothing else queued
}

TEST(SqliteJobQueue, LeasesInEnqueueOrderAndHeartbeatKeepsTheLease) {
  QueueDb tmp;
  SqliteJobQueue q(tmp.path());
  for (const char* id : {"first", "second"}) ASSERT_TRUE(q.enqueue(id, json::object(), nullptr).ok);
  auto a = lease(q, "lane-0", 300ms);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "first");
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(150ms);
    bool held = false;
    ASSERT_TRUE(q.heartbeat("first", "lane-0", 300ms, &held).ok);
    EXPECT_TRUE(held);
  }
  auto b = lease(q, "lane-1");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->id, "second");  // "first" was kept alive past its first expiry
  bool held = true;
  ASSERT_TRUE(q.heartbeat("first", "lane-9", 300ms, &held).ok);
  EXPECT_FALSE(held);  // not the owner
}

TEST(SqliteJobQueue, AJobLeasedByAKilledProcessIsLeasedAgainAfterItsLeaseExpires) {
  QueueDb tmp;
  const auto db = tmp.path();
  {
    SqliteJobQueue q(db);
    ASSERT_TRUE(q.enqueue("job-1", {{"candidate", "x"}}, nullptr).ok);
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SqliteJobQueue q(db);
    std::optional<LeasedJob> job;
    if (!q.lease("doomed-owner", 400ms, &job).ok || !job) _exit(3);
    kill(getpid(), SIGKILL);  // dies holding the lease, mid-stage
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child did not take the lease";

  SqliteJobQueue q(db);
  QueueCounts c;
  ASSERT_TRUE(q.counts(&c).ok);
  EXPECT_EQ(c.leased, 1);
  EXPECT_FALSE(lease(q, "survivor"));  // the lease still holds
  std::this_thread::sleep_for(500ms);
  auto job = lease(q, "survivor");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id, "job-1");
  EXPECT_EQ(job->attempts, 2);
  bool stored = false;
  ASSERT_TRUE(q.complete("job-1", "survivor", {{"verdict", "correct"}}, &stored).ok);
  EXPECT_TRUE(stored);
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q.outcome("job-1", &o).ok);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->state, JobState::done);
  ASSERT_EQ(o->failures.size(), 1u);
  EXPECT_NE(o->failures[0].find("doomed-owner"), std::string::npos) << o->failures[0];
}

TEST(SqliteJobQueue, ACompletedJobNeverProducesASecondRecord) {
  QueueDb tmp;
  const auto db = tmp.path();
  SqliteJobQueue q(db);
  ASSERT_TRUE(q.enqueue("j", json::object(), nullptr).ok);
  auto stale = lease(q, "slow-owner", 100ms);
  ASSERT_TRUE(stale);
  std::this_thread::sleep_for(150ms);
  auto fresh = lease(q, "fast-owner");  // the slow owner's lease expired: reclaimed and re-leased
  ASSERT_TRUE(fresh);
  bool stored = false;
  ASSERT_TRUE(q.complete("j", "fast-owner", {{"by", "fast"}}, &stored).ok);
  EXPECT_TRUE(stored);
  ASSERT_TRUE(q.complete("j", "slow-owner", {{"by", "slow"}}, &stored).ok);
  EXPECT_FALSE(stored);
  ASSERT_TRUE(q.complete("j", "fast-owner", {{"by", "again"}}, &stored).ok);
  EXPECT_FALSE(stored);
  bool requeued = true;
  ASSERT_TRUE(q.fail("j", "fast-owner", "late failure", &requeued).ok);
  EXPECT_FALSE(requeued);  // a finished job stays finished
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q.outcome("j", &o).ok);
  EXPECT_EQ(o->state, JobState::done);
  EXPECT_EQ(o->result.at("by"), "fast");
  EXPECT_FALSE(lease(q, "anyone"));
  QueueCounts c;
  ASSERT_TRUE(q.counts(&c).ok);
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.total(), 1);
}

TEST(SqliteJobQueue, FailuresRequeueUntilTheAttemptsBoundThenInfraErrorWithTheReason) {
  QueueDb tmp;
  SqliteJobQueue q(tmp.path(), {.max_attempts = 3});
  ASSERT_TRUE(q.enqueue("flaky", json::object(), nullptr).ok);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto job = lease(q, "lane");
    ASSERT_TRUE(job) << "attempt " << attempt;
    EXPECT_EQ(job->attempts, attempt);
    bool requeued = false;
    ASSERT_TRUE(
        q.fail("flaky", "lane", "GPU health probe failed (attempt " + std::to_string(attempt) + ")", &requeued).ok);
    EXPECT_EQ(requeued, attempt < 3);
  }
  EXPECT_FALSE(lease(q, "lane"));
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q.outcome("flaky", &o).ok);
  EXPECT_EQ(o->state, JobState::infra_error);
  EXPECT_EQ(o->failures.size(), 3u);
  EXPECT_NE(o->reason.find("after 3 attempt(s)"), std::string::npos) << o->reason;
  EXPECT_NE(o->reason.find("attempt 3"), std::string::npos) << o->reason;
  bool stored = true;
  ASSERT_TRUE(q.complete("flaky", "lane", json::object(), &stored).ok);
  EXPECT_FALSE(stored);
}

TEST(SqliteJobQueue, ReclaimExpiredCountsDeadLeasesAndEndsThoseOutOfAttempts) {
  QueueDb tmp;
  SqliteJobQueue q(tmp.path(), {.max_attempts = 1});
  ASSERT_TRUE(q.enqueue("a", json::object(), nullptr).ok);
  ASSERT_TRUE(lease(q, "dead", 50ms));
  std::this_thread::sleep_for(80ms);
  QueueCounts c;
  ASSERT_TRUE(q.counts(&c).ok);
  EXPECT_EQ(c.expired_leases, 1);
  int reclaimed = 0;
  ASSERT_TRUE(q.reclaim_expired(&reclaimed).ok);
  EXPECT_EQ(reclaimed, 1);
  std::optional<JobOutcome> o;
  ASSERT_TRUE(q.outcome("a", &o).ok);
  EXPECT_EQ(o->state, JobState::infra_error);
  EXPECT_NE(o->reason.find("expired"), std::string::npos);
  std::optional<JobOutcome> none;
  ASSERT_TRUE(q.outcome("missing", &none).ok);
  EXPECT_FALSE(none);
}

TEST(SqliteJobQueue, AnUnopenableDatabaseIsATypedStatusNotACrash) {
  SqliteJobQueue q("/proc/ptxbench-no-such-dir/x.db");
  EXPECT_FALSE(q.status().ok);
  bool inserted = false;
  auto s = q.enqueue("a", json::object(), &inserted);
  EXPECT_FALSE(s.ok);
  EXPECT_FALSE(s.error.empty());
}

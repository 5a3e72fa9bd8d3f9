// The lease policy of the SQLite job queue over the store's service_jobs tables.
#include "service/queue/sqlite_job_queue.h"

namespace ptxbench {
namespace {

QueueStatus queue_error(const DbStatus& s) { return QueueStatus::failure("job queue: " + s.error); }

std::optional<JobState> state_from(const std::string& s) {
  for (JobState st : {JobState::queued, JobState::leased, JobState::done, JobState::infra_error})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

}  // namespace

const char* to_string(JobState s) {
  switch (s) {
    case JobState::queued: return "queued";
    case JobState::leased: return "leased";
    case JobState::done: return "done";
    case JobState::infra_error: return "infra_error";
  }
  return "?";
}

long long wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

SqliteJobQueue::SqliteJobQueue(const std::filesystem::path& db_path, SqliteQueueOptions options)
    : jobs_(db_path), options_(options) {
  if (!jobs_.status().ok) status_ = queue_error(jobs_.status());
  if (options_.max_attempts < 1) options_.max_attempts = 1;
}

QueueStatus SqliteJobQueue::enqueue(const std::string& id, const json& payload, bool* inserted) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  if (auto s = jobs_.insert_queued(id, payload, wall_clock_ms(), inserted); !s.ok) return queue_error(s);
  return {};
}

QueueStatus SqliteJobQueue::end_attempt_locked(const std::string& id, const std::string& reason, bool* requeued) {
  std::optional<ServiceJobRow> job;
  if (auto s = jobs_.find(id, &job); !s.ok) return queue_error(s);
  if (!job) return QueueStatus::failure("job queue: reading job " + id + ": " + jobs_.last_error());
  json failures = job->failures;
  if (!failures.is_array()) failures = json::array();
  failures.push_back(reason);
  const bool again = job->attempts < options_.max_attempts;
  const std::string final_reason =
      again ? reason : "infra_error after " + std::to_string(job->attempts) + " attempt(s); last: " + reason;
  if (auto s = jobs_.end_attempt(id, again ? "queued" : "infra_error", failures, final_reason, wall_clock_ms()); !s.ok)
    return queue_error(s);
  if (requeued) *requeued = again;
  return {};
}

QueueStatus SqliteJobQueue::reclaim_locked(int* reclaimed) {
  std::vector<ServiceJobRow> expired;
  if (auto s = jobs_.expired_leases(wall_clock_ms(), &expired); !s.ok) return queue_error(s);
  for (const auto& job : expired)
    if (auto s = end_attempt_locked(
            job.id, "the lease of " + job.owner.value_or("") + " expired (its owner died or stalled)", nullptr);
        !s.ok)
      return s;
  if (reclaimed) *reclaimed = static_cast<int>(expired.size());
  return {};
}

QueueStatus SqliteJobQueue::reclaim_expired(int* reclaimed) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  ServiceJobStore::Transaction tx(jobs_);
  if (!tx.began()) return QueueStatus::failure("job queue: beginning reclaim: " + jobs_.last_error());
  if (auto s = reclaim_locked(reclaimed); !s.ok) return s;
  if (!tx.commit()) return QueueStatus::failure("job queue: committing reclaim: " + jobs_.last_error());
  return {};
}

QueueStatus SqliteJobQueue::lease(const std::string& owner, std::chrono::milliseconds ttl,
                                  std::optional<LeasedJob>* out) {
  if (!status_.ok) return status_;
  out->reset();
  std::lock_guard lock(mutex_);
  ServiceJobStore::Transaction tx(jobs_);
  if (!tx.began()) return QueueStatus::failure("job queue: beginning lease: " + jobs_.last_error());
  if (auto s = reclaim_locked(nullptr); !s.ok) return s;
  std::optional<ServiceJobRow> next;
  if (auto s = jobs_.first_queued(&next); !s.ok) return queue_error(s);
  if (!next)
    return tx.commit() ? QueueStatus{}
                       : QueueStatus::failure("job queue: committing an empty lease: " + jobs_.last_error());
  LeasedJob job;
  job.id = next->id;
  job.payload = std::move(next->payload);
  job.attempts = next->attempts + 1;
  job.owner = owner;
  job.lease_expires_ms = wall_clock_ms() + ttl.count();
  if (auto s = jobs_.mark_leased(job.id, owner, job.lease_expires_ms, job.attempts, wall_clock_ms()); !s.ok)
    return queue_error(s);
  if (!tx.commit())
    return QueueStatus::failure("job queue: committing the lease of " + job.id + ": " + jobs_.last_error());
  *out = std::move(job);
  return {};
}

QueueStatus SqliteJobQueue::heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                                      bool* held) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  const long long now = wall_clock_ms();
  if (auto s = jobs_.extend_lease(id, owner, now + ttl.count(), now, held); !s.ok) return queue_error(s);
  return {};
}

QueueStatus SqliteJobQueue::complete(const std::string& id, const std::string& owner, const json& result,
                                     bool* stored) {
  if (!status_.ok) return status_;
  if (stored) *stored = false;
  std::lock_guard lock(mutex_);
  ServiceJobStore::Transaction tx(jobs_);
  if (!tx.began()) return QueueStatus::failure("job queue: beginning completion: " + jobs_.last_error());
  {
    std::optional<ServiceJobRow> job;
    if (auto s = jobs_.find(id, &job); !s.ok || !job)
      return QueueStatus::failure("job queue: completing an unknown job " + id);
    // A result is good whoever computed it, as long as the job has not ended: a stale owner's
    // finished work is kept, and the current holder's later completion stores nothing.
    if (job->state == "done" || job->state == "infra_error")
      return tx.commit() ? QueueStatus{} : QueueStatus::failure("job queue: committing: " + jobs_.last_error());
  }
  if (auto s = jobs_.store_result(id, owner, result, wall_clock_ms()); !s.ok) return queue_error(s);
  if (!tx.commit())
    return QueueStatus::failure("job queue: committing the result of " + id + ": " + jobs_.last_error());
  if (stored) *stored = true;
  return {};
}

QueueStatus SqliteJobQueue::fail(const std::string& id, const std::string& owner, const std::string& reason,
                                 bool* requeued) {
  if (!status_.ok) return status_;
  if (requeued) *requeued = false;
  std::lock_guard lock(mutex_);
  ServiceJobStore::Transaction tx(jobs_);
  if (!tx.began()) return QueueStatus::failure("job queue: beginning failure: " + jobs_.last_error());
  {
    // Only the lease's holder can fail the job.
    std::optional<ServiceJobRow> job;
    const auto s = jobs_.find(id, &job);
    if (!s.ok || !job || job->owner != owner || job->state != "leased")
      return tx.commit() ? QueueStatus{} : QueueStatus::failure("job queue: committing: " + jobs_.last_error());
  }
  if (auto s = end_attempt_locked(id, reason, requeued); !s.ok) return s;
  if (!tx.commit())
    return QueueStatus::failure("job queue: committing the failure of " + id + ": " + jobs_.last_error());
  return {};
}

QueueStatus SqliteJobQueue::counts(QueueCounts* out) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  *out = {};
  ServiceJobCounts c;
  if (auto s = jobs_.counts(wall_clock_ms(), &c); !s.ok) return queue_error(s);
  out->queued = c.queued, out->leased = c.leased, out->done = c.done, out->infra_error = c.infra_error;
  out->expired_leases = c.expired_leases;
  return {};
}

QueueStatus SqliteJobQueue::outcome(const std::string& id, std::optional<JobOutcome>* out) {
  if (!status_.ok) return status_;
  out->reset();
  std::lock_guard lock(mutex_);
  std::optional<ServiceJobRow> job;
  std::optional<json> result;
  if (auto s = jobs_.outcome(id, &job, &result); !s.ok) return queue_error(s);
  if (!job) return {};
  JobOutcome o;
  o.id = id;
  auto state = state_from(job->state);
  if (!state) return QueueStatus::failure("job queue: job " + id + " has an unknown state '" + job->state + "'");
  o.state = *state;
  o.reason = job->reason;
  o.attempts = job->attempts;
  if (job->failures.is_array())
    for (const auto& f : job->failures) o.failures.push_back(f.get<std::string>());
  if (result) o.result = std::move(*result);
  *out = std::move(o);
  return {};
}

QueueStatus SqliteJobQueue::payload(const std::string& id, std::optional<json>* out) {
  if (!status_.ok) return status_;
  out->reset();
  std::lock_guard lock(mutex_);
  std::optional<ServiceJobRow> job;
  if (auto s = jobs_.find(id, &job); !s.ok) return queue_error(s);
  if (job) *out = std::move(job->payload);
  return {};
}

}  // namespace ptxbench

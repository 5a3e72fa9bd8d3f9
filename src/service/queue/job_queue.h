// The service's job queue: candidates waiting for the GPU, held by leases so that a dead owner
// (kill -9 of a lane, the dispatcher or the whole harness) loses no job. The single-host default
// is a lease table in the workspace's SQLite database (sqlite_job_queue.h); issue 14 adds Redis
// Streams behind the same interface. Every call returns a typed status (a process/DB boundary).
//
// Life of a job: enqueue (idempotent on its id) -> queued -> lease (owner, expiry; attempts + 1)
// -> heartbeat extends the lease -> complete (the result is stored exactly once: a second
// complete of the same job, by any owner, stores nothing) or fail (back to queued while attempts
// remain, else terminal infra_error with the reason). A lease that expires (its owner died or
// stalled) is reclaimed the same way as a failure whose reason says so.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct QueueStatus {
  bool ok = true;
  std::string error;  // what failed, with the backend's message
  static QueueStatus failure(std::string e) { return {false, std::move(e)}; }
};

enum class JobState { queued, leased, done, infra_error };
const char* to_string(JobState s);

struct LeasedJob {
  std::string id;
  json payload;
  int attempts = 0;  // including this lease
  std::string owner;
  long long lease_expires_ms = 0;  // wall clock, ms since the epoch
};

// A job's terminal outcome: the stored result (done), or why it ended as infra_error.
struct JobOutcome {
  std::string id;
  JobState state = JobState::queued;
  json result;         // done: what complete() stored
  std::string reason;  // infra_error: why; otherwise the last failure's reason, if any
  int attempts = 0;
  std::vector<std::string> failures;  // every failure's reason, oldest first
};

struct QueueCounts {
  long long queued = 0, leased = 0, done = 0, infra_error = 0;
  long long expired_leases = 0;  // leased, past their expiry, not yet reclaimed
  long long total() const { return queued + leased + done + infra_error; }
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;
  // Adds the job unless a job with this id exists (then *inserted = false, nothing changes).
  virtual QueueStatus enqueue(const std::string& id, const json& payload, bool* inserted) = 0;
  // The oldest queued job, leased to `owner` for `ttl`; *out empty when nothing is queued.
  // Reclaims expired leases first.
  virtual QueueStatus lease(const std::string& owner, std::chrono::milliseconds ttl, std::optional<LeasedJob>* out) = 0;
  // Extends the lease; *held = false when `owner` no longer holds it (reclaimed, finished).
  virtual QueueStatus heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                                bool* held) = 0;
  // Stores the result and ends the job; *stored = false when the job had already ended (a
  // result from a stale owner, or a second completion), in which case nothing is written.
  virtual QueueStatus complete(const std::string& id, const std::string& owner, const json& result, bool* stored) = 0;
  // Ends this lease without a result: requeued (*requeued = true) while attempts < the bound,
  // else infra_error with `reason`. Ignored (*requeued = false) when `owner` no longer holds it.
  virtual QueueStatus fail(const std::string& id, const std::string& owner, const std::string& reason,
                           bool* requeued) = 0;
  // Every lease past its expiry: requeued, or infra_error when out of attempts.
  virtual QueueStatus reclaim_expired(int* reclaimed) = 0;
  virtual QueueStatus counts(QueueCounts* out) = 0;
  // The job's state and, once it ended, its outcome; *out empty when no such job.
  virtual QueueStatus outcome(const std::string& id, std::optional<JobOutcome>* out) = 0;
  // The payload the job was enqueued with; *out empty when no such job. (The reward API holds a
  // second submission under the same key against the first.)
  virtual QueueStatus payload(const std::string& id, std::optional<json>* out) = 0;
};

}  // namespace ptxbench

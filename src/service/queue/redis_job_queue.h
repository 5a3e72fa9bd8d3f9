// The JobQueue on Redis Streams, for workers on many hosts: jobs are entries of one stream read
// by one consumer group of workers. A lease is an XREADGROUP delivery to the worker (its owner
// name is the consumer); a heartbeat resets the entry's idle time; a stored result is written
// once into a results hash (HSETNX on the job id) and the entry is XACKed; jobs of dead or
// stalled workers are taken over with XAUTOCLAIM once idle for longer than a lease; the entry's
// delivery count bounds the attempts, then the job ends as infra_error with every reason kept.
// Finished jobs are announced on a results stream that submitters read (read_finished()).
// Every transition is one Lua script (redis_scripts.h), so it is atomic and safe to re-run after
// a dropped connection. Thread-safe (one connection, serialized).
#pragma once
#include <mutex>

#include "service/queue/job_queue.h"
#include "service/queue/redis_connection.h"
#include "service/queue/redis_url.h"

namespace ptxbench {

struct RedisQueueOptions {
  int max_attempts = 3;  // deliveries per job before it ends as infra_error
  RedisConnectOptions connection{};
};

class RedisJobQueue final : public JobQueue {
 public:
  // Connects and creates the stream and its consumer group if needed; check status() before use.
  explicit RedisJobQueue(RedisEndpoint endpoint, RedisQueueOptions options = {});
  const QueueStatus& status() const { return status_; }
  const RedisEndpoint& endpoint() const { return endpoint_; }

  QueueStatus enqueue(const std::string& id, const json& payload, bool* inserted) override;
  QueueStatus lease(const std::string& owner, std::chrono::milliseconds ttl, std::optional<LeasedJob>* out) override;
  QueueStatus heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                        bool* held) override;
  QueueStatus complete(const std::string& id, const std::string& owner, const json& result, bool* stored) override;
  QueueStatus fail(const std::string& id, const std::string& owner, const std::string& reason, bool* requeued) override;
  QueueStatus reclaim_expired(int* reclaimed) override;
  QueueStatus counts(QueueCounts* out) override;
  QueueStatus outcome(const std::string& id, std::optional<JobOutcome>* out) override;
  QueueStatus payload(const std::string& id, std::optional<json>* out) override;

  // The submitter's side: ids of jobs that ended after *cursor on the results stream ("0": from
  // the start), waiting up to `block` for the first; *cursor moves past what was read. Holds the
  // connection while it waits: give a waiting submitter a queue object of its own.
  QueueStatus read_finished(std::string* cursor, std::chrono::milliseconds block, std::vector<std::string>* ids);
  // The cursor of the results stream's newest entry ("0" when empty): read_finished() from it
  // sees every job that ends from now on.
  QueueStatus finished_cursor(std::string* cursor);
  // A worker's published state (lanes, GPU health and thermal state), for `service status` on
  // any host; it disappears `ttl` after the last publication (a dead worker drops out).
  QueueStatus publish_worker(const std::string& owner, const json& state, std::chrono::milliseconds ttl);
  QueueStatus workers(std::vector<json>* out);
  long long reconnects() const;

 private:
  QueueStatus script(const RedisScript& s, std::vector<std::string> args, RedisReplyPtr* reply);
  QueueStatus ensure_group();
  std::string key(const char* what) const;

  RedisEndpoint endpoint_;
  RedisQueueOptions options_;
  std::vector<std::string> keys_;
  QueueStatus status_;
  mutable std::mutex mu_;
  RedisConnection conn_;
};

}  // namespace ptxbench

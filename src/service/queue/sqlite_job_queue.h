// The lease table in the workspace's SQLite database (WAL, so lanes in other processes lease
// concurrently): the lease policy over the store's service_jobs and service_job_results tables
// (store/service_job_store.h owns them: a second record of a job is impossible by their key).
// Thread-safe (one connection, serialized); several processes may open the same file.
#pragma once
#include <filesystem>
#include <mutex>

#include "service/queue/job_queue.h"
#include "store/service_job_store.h"

namespace ptxbench {

struct SqliteQueueOptions {
  int max_attempts = 3;  // leases per job before it ends as infra_error
};

class SqliteJobQueue final : public JobQueue {
 public:
  // Opens (creating if needed) the database file; check status() before use.
  SqliteJobQueue(const std::filesystem::path& db_path, SqliteQueueOptions options = {});
  ~SqliteJobQueue() override = default;
  SqliteJobQueue(const SqliteJobQueue&) = delete;
  SqliteJobQueue& operator=(const SqliteJobQueue&) = delete;
  const QueueStatus& status() const { return status_; }

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

 private:
  QueueStatus reclaim_locked(int* reclaimed);
  QueueStatus end_attempt_locked(const std::string& id, const std::string& reason, bool* requeued);
  ServiceJobStore jobs_;
  SqliteQueueOptions options_;
  QueueStatus status_;
  std::mutex mutex_;
};

long long wall_clock_ms();

}  // namespace ptxbench

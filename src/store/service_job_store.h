// The GPU service's SQLite job queue tables, in the workspace database (schema_migrations.cpp,
// migration 4): service_jobs (one row per job: its payload, state, lease and failures) and
// service_job_results (job_id PRIMARY KEY: a second result of a job cannot be stored). The lease
// policy (attempts, reclaiming expired leases) is the queue's (service/queue/sqlite_job_queue.h);
// this is its storage, as typed rows. Errors are DbStatus values saying what failed.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "store/workspace_db.h"

struct sqlite3;

namespace ptxbench {

struct ServiceJobRow {
  std::string id;
  json payload;                      // as parsed (a malformed payload is a discarded value)
  std::string state;                 // queued, leased, done, infra_error
  std::optional<std::string> owner;  // the lease holder while leased
  std::optional<long long> lease_expires_ms;
  int attempts = 0;  // leases so far
  json failures;     // the failures' reasons, as parsed (an array when well formed)
  std::string reason;
  long long enqueued_ms = 0, updated_ms = 0;
};

// Jobs per state, and the leased ones whose lease has expired.
struct ServiceJobCounts {
  long long queued = 0, leased = 0, done = 0, infra_error = 0, expired_leases = 0;
};

class ServiceJobStore {
 public:
  // Opens (creating if needed) the database file (WAL) and brings the queue's tables up to date.
  explicit ServiceJobStore(const std::filesystem::path& db_path);
  ~ServiceJobStore();
  ServiceJobStore(const ServiceJobStore&) = delete;
  ServiceJobStore& operator=(const ServiceJobStore&) = delete;
  const DbStatus& status() const { return status_; }

  // BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() succeeded.
  class Transaction {
   public:
    explicit Transaction(ServiceJobStore& store);
    ~Transaction();
    bool began() const;
    bool commit();

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };
  std::string last_error() const;  // SQLite's message for the last call that failed

  // A new job in state queued, unless one with this id exists (*inserted says which).
  DbStatus insert_queued(const std::string& id, const json& payload, long long now_ms, bool* inserted);
  DbStatus find(const std::string& id, std::optional<ServiceJobRow>* out);
  DbStatus first_queued(std::optional<ServiceJobRow>* out);  // the oldest queued job
  DbStatus expired_leases(long long now_ms, std::vector<ServiceJobRow>* out);
  DbStatus mark_leased(const std::string& id, const std::string& owner, long long expires_ms, int attempts,
                       long long now_ms);
  // The lease's new expiry, when `owner` still holds it (*held says whether).
  DbStatus extend_lease(const std::string& id, const std::string& owner, long long expires_ms, long long now_ms,
                        bool* held);
  // The attempt ended: state (queued again or infra_error), its failures and reason; no owner, no lease.
  DbStatus end_attempt(const std::string& id, const std::string& state, const json& failures, const std::string& reason,
                       long long now_ms);
  // The job's result and its state done, no owner, no lease (the caller's transaction holds both).
  DbStatus store_result(const std::string& id, const std::string& owner, const json& result, long long now_ms);
  DbStatus counts(long long now_ms, ServiceJobCounts* out);
  // The job (nullopt: no such job) and its stored result as parsed (nullopt: none), read together.
  DbStatus outcome(const std::string& id, std::optional<ServiceJobRow>* job, std::optional<json>* result);

 private:
  sqlite3* db_ = nullptr;
  DbStatus status_;
};

}  // namespace ptxbench

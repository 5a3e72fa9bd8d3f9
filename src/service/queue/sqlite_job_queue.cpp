#include "service/queue/sqlite_job_queue.h"

#include <sqlite3.h>

#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Params;
using sqlite::Statement;
using sqlite::Transaction;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS service_jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  payload_json TEXT NOT NULL,
  state TEXT NOT NULL,                 -- queued, leased, done, infra_error
  owner TEXT,                          -- the lease holder while leased
  lease_expires_ms INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0, -- leases so far
  failures_json TEXT NOT NULL DEFAULT '[]',
  reason TEXT NOT NULL DEFAULT '',
  enqueued_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS service_jobs_state ON service_jobs(state, seq);
CREATE TABLE IF NOT EXISTS service_job_results (
  job_id TEXT PRIMARY KEY,             -- one record per job, by construction
  result_json TEXT NOT NULL,
  owner TEXT NOT NULL,
  completed_ms INTEGER NOT NULL
);
)sql";

QueueStatus sql_error(sqlite3* db, const std::string& what) {
  return QueueStatus::failure("job queue: " + what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
}

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

SqliteJobQueue::SqliteJobQueue(const std::filesystem::path& db_path, SqliteQueueOptions options) : options_(options) {
  std::error_code ec;
  if (db_path.has_parent_path()) std::filesystem::create_directories(db_path.parent_path(), ec);
  if (sqlite3_open(db_path.c_str(), &db_) != SQLITE_OK) {
    status_ = sql_error(db_, "opening " + db_path.string());
    return;
  }
  sqlite3_busy_timeout(db_, 15000);
  for (const char* sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", kSchema}) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      status_ = QueueStatus::failure(std::string("job queue: schema: ") + (msg ? msg : "unknown error"));
      sqlite3_free(msg);
      return;
    }
  }
  if (options_.max_attempts < 1) options_.max_attempts = 1;
}

SqliteJobQueue::~SqliteJobQueue() { sqlite3_close(db_); }

QueueStatus SqliteJobQueue::enqueue(const std::string& id, const json& payload, bool* inserted) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  Statement st(db_, "INSERT OR IGNORE INTO service_jobs (id, payload_json, state, enqueued_ms, updated_ms) "
                    "VALUES (?, ?, 'queued', ?, ?)");
  if (!st.ok()) return sql_error(db_, "preparing enqueue");
  const long long now = wall_clock_ms();
  Params(st) << id << payload.dump() << now << now;
  if (st.step() != SQLITE_DONE) return sql_error(db_, "enqueueing " + id);
  if (inserted) *inserted = sqlite3_changes(db_) == 1;
  return {};
}

QueueStatus SqliteJobQueue::end_attempt_locked(const std::string& id, const std::string& reason, bool* requeued) {
  Statement get(db_, "SELECT attempts, failures_json FROM service_jobs WHERE id = ?");
  Params(get) << id;
  if (get.step() != SQLITE_ROW) return sql_error(db_, "reading job " + id);
  const int attempts = static_cast<int>(get.integer(0));
  json failures = json::parse(get.text(1), nullptr, false);
  if (!failures.is_array()) failures = json::array();
  failures.push_back(reason);
  const bool again = attempts < options_.max_attempts;
  Statement up(db_, "UPDATE service_jobs SET state = ?, owner = NULL, lease_expires_ms = NULL, failures_json = ?, "
                    "reason = ?, updated_ms = ? WHERE id = ?");
  const std::string final_reason =
      again ? reason : "infra_error after " + std::to_string(attempts) + " attempt(s); last: " + reason;
  Params(up) << std::string(again ? "queued" : "infra_error") << failures.dump() << final_reason << wall_clock_ms() << id;
  if (up.step() != SQLITE_DONE) return sql_error(db_, "ending the attempt of " + id);
  if (requeued) *requeued = again;
  return {};
}

QueueStatus SqliteJobQueue::reclaim_locked(int* reclaimed) {
  std::vector<std::pair<std::string, std::string>> expired;
  {
    Statement st(db_, "SELECT id, owner FROM service_jobs WHERE state = 'leased' AND lease_expires_ms < ?");
    Params(st) << wall_clock_ms();
    while (st.step() == SQLITE_ROW) expired.emplace_back(st.text(0), st.text(1));
  }
  for (const auto& [id, owner] : expired)
    if (auto s = end_attempt_locked(id, "the lease of " + owner + " expired (its owner died or stalled)", nullptr); !s.ok)
      return s;
  if (reclaimed) *reclaimed = static_cast<int>(expired.size());
  return {};
}

QueueStatus SqliteJobQueue::reclaim_expired(int* reclaimed) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  if (!tx.began()) return sql_error(db_, "beginning reclaim");
  if (auto s = reclaim_locked(reclaimed); !s.ok) return s;
  if (!tx.commit()) return sql_error(db_, "committing reclaim");
  return {};
}

QueueStatus SqliteJobQueue::lease(const std::string& owner, std::chrono::milliseconds ttl, std::optional<LeasedJob>* out) {
  if (!status_.ok) return status_;
  out->reset();
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  if (!tx.began()) return sql_error(db_, "beginning lease");
  if (auto s = reclaim_locked(nullptr); !s.ok) return s;
  LeasedJob job;
  {
    Statement st(db_, "SELECT id, payload_json, attempts FROM service_jobs WHERE state = 'queued' ORDER BY seq LIMIT 1");
    const int rc = st.step();
    if (rc == SQLITE_DONE) return tx.commit() ? QueueStatus{} : sql_error(db_, "committing an empty lease");
    if (rc != SQLITE_ROW) return sql_error(db_, "selecting a job");
    job.id = st.text(0);
    job.payload = json::parse(st.text(1), nullptr, false);
    job.attempts = static_cast<int>(st.integer(2)) + 1;
  }
  job.owner = owner;
  job.lease_expires_ms = wall_clock_ms() + ttl.count();
  Statement up(db_, "UPDATE service_jobs SET state = 'leased', owner = ?, lease_expires_ms = ?, attempts = ?, "
                    "updated_ms = ? WHERE id = ?");
  Params(up) << owner << job.lease_expires_ms << job.attempts << wall_clock_ms() << job.id;
  if (up.step() != SQLITE_DONE) return sql_error(db_, "leasing " + job.id);
  if (!tx.commit()) return sql_error(db_, "committing the lease of " + job.id);
  *out = std::move(job);
  return {};
}

QueueStatus SqliteJobQueue::heartbeat(const std::string& id, const std::string& owner, std::chrono::milliseconds ttl,
                                      bool* held) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  Statement st(db_, "UPDATE service_jobs SET lease_expires_ms = ?, updated_ms = ? "
                    "WHERE id = ? AND owner = ? AND state = 'leased'");
  const long long now = wall_clock_ms();
  Params(st) << now + ttl.count() << now << id << owner;
  if (st.step() != SQLITE_DONE) return sql_error(db_, "extending the lease of " + id);
  if (held) *held = sqlite3_changes(db_) == 1;
  return {};
}

QueueStatus SqliteJobQueue::complete(const std::string& id, const std::string& owner, const json& result, bool* stored) {
  if (!status_.ok) return status_;
  if (stored) *stored = false;
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  if (!tx.began()) return sql_error(db_, "beginning completion");
  {
    Statement st(db_, "SELECT state FROM service_jobs WHERE id = ?");
    Params(st) << id;
    if (st.step() != SQLITE_ROW) return QueueStatus::failure("job queue: completing an unknown job " + id);
    const std::string state = st.text(0);
    // A result is good whoever computed it, as long as the job has not ended: a stale owner's
    // finished work is kept, and the current holder's later completion stores nothing.
    if (state == "done" || state == "infra_error") return tx.commit() ? QueueStatus{} : sql_error(db_, "committing");
  }
  const long long now = wall_clock_ms();
  Statement ins(db_, "INSERT INTO service_job_results (job_id, result_json, owner, completed_ms) VALUES (?, ?, ?, ?)");
  Params(ins) << id << result.dump() << owner << now;
  if (ins.step() != SQLITE_DONE) return sql_error(db_, "storing the result of " + id);
  Statement up(db_, "UPDATE service_jobs SET state = 'done', owner = NULL, lease_expires_ms = NULL, updated_ms = ? WHERE id = ?");
  Params(up) << now << id;
  if (up.step() != SQLITE_DONE) return sql_error(db_, "ending job " + id);
  if (!tx.commit()) return sql_error(db_, "committing the result of " + id);
  if (stored) *stored = true;
  return {};
}

QueueStatus SqliteJobQueue::fail(const std::string& id, const std::string& owner, const std::string& reason, bool* requeued) {
  if (!status_.ok) return status_;
  if (requeued) *requeued = false;
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  if (!tx.began()) return sql_error(db_, "beginning failure");
  {
    Statement st(db_, "SELECT 1 FROM service_jobs WHERE id = ? AND owner = ? AND state = 'leased'");
    Params(st) << id << owner;
    if (st.step() != SQLITE_ROW) return tx.commit() ? QueueStatus{} : sql_error(db_, "committing");
  }
  if (auto s = end_attempt_locked(id, reason, requeued); !s.ok) return s;
  if (!tx.commit()) return sql_error(db_, "committing the failure of " + id);
  return {};
}

QueueStatus SqliteJobQueue::counts(QueueCounts* out) {
  if (!status_.ok) return status_;
  std::lock_guard lock(mutex_);
  *out = {};
  Statement st(db_, "SELECT state, COUNT(*), SUM(state = 'leased' AND lease_expires_ms < ?) FROM service_jobs GROUP BY state");
  Params(st) << wall_clock_ms();
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    const auto state = state_from(st.text(0));
    const long long n = st.integer(1);
    if (state == JobState::queued) out->queued = n;
    else if (state == JobState::leased) out->leased = n, out->expired_leases = st.integer(2);
    else if (state == JobState::done) out->done = n;
    else if (state == JobState::infra_error) out->infra_error = n;
  }
  return rc == SQLITE_DONE ? QueueStatus{} : sql_error(db_, "counting jobs");
}

QueueStatus SqliteJobQueue::outcome(const std::string& id, std::optional<JobOutcome>* out) {
  if (!status_.ok) return status_;
  out->reset();
  std::lock_guard lock(mutex_);
  Statement st(db_, "SELECT j.state, j.reason, j.attempts, j.failures_json, r.result_json FROM service_jobs j "
                    "LEFT JOIN service_job_results r ON r.job_id = j.id WHERE j.id = ?");
  Params(st) << id;
  const int rc = st.step();
  if (rc == SQLITE_DONE) return {};
  if (rc != SQLITE_ROW) return sql_error(db_, "reading job " + id);
  JobOutcome o;
  o.id = id;
  auto state = state_from(st.text(0));
  if (!state) return QueueStatus::failure("job queue: job " + id + " has an unknown state '" + st.text(0) + "'");
  o.state = *state;
  o.reason = st.text(1);
  o.attempts = static_cast<int>(st.integer(2));
  json failures = json::parse(st.text(3), nullptr, false);
  if (failures.is_array())
    for (const auto& f : failures) o.failures.push_back(f.get<std::string>());
  if (!st.is_null(4)) o.result = json::parse(st.text(4), nullptr, false);
  *out = std::move(o);
  return {};
}

}  // namespace ptxbench

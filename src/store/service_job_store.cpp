// The service job queue's tables (service_jobs, service_job_results) and their transactions.
#include "store/service_job_store.h"

#include <sqlite3.h>

#include "store/row_columns.h"
#include "store/content_tables.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;
using store_detail::Columns;

using store_detail::sql_error;

// A JSON column read as parsed, malformed or not (the queue decides what a malformed one means).
store_detail::Column<ServiceJobRow> parsed_json(const char* name, json ServiceJobRow::*m) {
  return {name, [m](sqlite::Statement& st, int p, const ServiceJobRow& r) { st.bind(p, (r.*m).dump()); },
          [m](const sqlite::Statement& st, int c, ServiceJobRow& r) {
            return r.*m = json::parse(st.text(c), nullptr, false), true;
          },
          ""};
}

const Columns<ServiceJobRow>& job_columns() {
  using C = store_detail::Make<ServiceJobRow>;
  using J = ServiceJobRow;
  static const Columns<ServiceJobRow> c(
      "service_jobs",
      {C::text("id", &J::id), parsed_json("payload_json", &J::payload), C::text("state", &J::state),
       C::opt_text("owner", &J::owner), C::opt_integer("lease_expires_ms", &J::lease_expires_ms),
       C::integer("attempts", &J::attempts), parsed_json("failures_json", &J::failures), C::text("reason", &J::reason),
       C::integer("enqueued_ms", &J::enqueued_ms), C::integer("updated_ms", &J::updated_ms)});
  return c;
}

ServiceJobRow read_job(const Statement& st) {
  ServiceJobRow r;
  std::string unused;
  job_columns().read(st, &r, &unused);
  return r;
}

}  // namespace

struct ServiceJobStore::Transaction::Impl {
  explicit Impl(sqlite3* db) : tx(db) {}
  sqlite::Transaction tx;
};

ServiceJobStore::Transaction::Transaction(ServiceJobStore& store) : impl_(std::make_unique<Impl>(store.db_)) {}
ServiceJobStore::Transaction::~Transaction() = default;
bool ServiceJobStore::Transaction::began() const { return impl_->tx.began(); }
bool ServiceJobStore::Transaction::commit() { return impl_->tx.commit(); }

ServiceJobStore::ServiceJobStore(const std::filesystem::path& db_path) {
  std::error_code ec;
  if (db_path.has_parent_path()) std::filesystem::create_directories(db_path.parent_path(), ec);
  if (sqlite3_open(db_path.c_str(), &db_) != SQLITE_OK) {
    status_ = sql_error(db_, "opening " + db_path.string());
    return;
  }
  sqlite3_busy_timeout(db_, 15000);
  if (auto s = prepare_writer(db_, SchemaPart::service_jobs, db_path, "schema: "); !s.ok) status_ = s;
}

ServiceJobStore::~ServiceJobStore() { sqlite3_close(db_); }

std::string ServiceJobStore::last_error() const { return db_ ? sqlite3_errmsg(db_) : "no database"; }

DbStatus ServiceJobStore::insert_queued(const std::string& id, const json& payload, long long now_ms, bool* inserted) {
  Statement st(db_,
               "INSERT OR IGNORE INTO service_jobs (id, payload_json, state, enqueued_ms, updated_ms) "
               "VALUES (:id, :payload, 'queued', :now, :now)");
  if (!st.ok()) return sql_error(db_, "preparing enqueue");
  st.bind(":id", id).bind(":payload", payload.dump()).bind(":now", now_ms);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "enqueueing " + id);
  if (inserted) *inserted = sqlite3_changes(db_) == 1;
  return {};
}

DbStatus ServiceJobStore::find(const std::string& id, std::optional<ServiceJobRow>* out) {
  out->reset();
  Statement st(db_, job_columns().select_sql("WHERE id = :id").c_str());
  if (!st.ok()) return sql_error(db_, "reading job " + id);
  st.bind(":id", id);
  const int rc = st.step();
  if (rc == SQLITE_ROW) *out = read_job(st);
  else if (rc != SQLITE_DONE) return sql_error(db_, "reading job " + id);
  return {};
}

DbStatus ServiceJobStore::first_queued(std::optional<ServiceJobRow>* out) {
  out->reset();
  Statement st(db_, job_columns().select_sql("WHERE state = 'queued' ORDER BY seq LIMIT 1").c_str());
  if (!st.ok()) return sql_error(db_, "selecting a job");
  const int rc = st.step();
  if (rc == SQLITE_DONE) return {};
  if (rc != SQLITE_ROW) return sql_error(db_, "selecting a job");
  *out = read_job(st);
  return {};
}

DbStatus ServiceJobStore::expired_leases(long long now_ms, std::vector<ServiceJobRow>* out) {
  Statement st(db_, job_columns().select_sql("WHERE state = 'leased' AND lease_expires_ms < :now").c_str());
  if (!st.ok()) return sql_error(db_, "selecting expired leases");
  st.bind(":now", now_ms);
  while (st.step() == SQLITE_ROW) out->push_back(read_job(st));
  return {};
}

DbStatus ServiceJobStore::mark_leased(const std::string& id, const std::string& owner, long long expires_ms,
                                      int attempts, long long now_ms) {
  Statement st(
      db_,
      "UPDATE service_jobs SET state = 'leased', owner = :owner, lease_expires_ms = :expires, attempts = :attempts, "
      "updated_ms = :now WHERE id = :id");
  st.bind(":owner", owner)
      .bind(":expires", expires_ms)
      .bind(":attempts", attempts)
      .bind(":now", now_ms)
      .bind(":id", id);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "leasing " + id);
  return {};
}

DbStatus ServiceJobStore::extend_lease(const std::string& id, const std::string& owner, long long expires_ms,
                                       long long now_ms, bool* held) {
  Statement st(db_,
               "UPDATE service_jobs SET lease_expires_ms = :expires, updated_ms = :now "
               "WHERE id = :id AND owner = :owner AND state = 'leased'");
  st.bind(":expires", expires_ms).bind(":now", now_ms).bind(":id", id).bind(":owner", owner);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "extending the lease of " + id);
  if (held) *held = sqlite3_changes(db_) == 1;
  return {};
}

DbStatus ServiceJobStore::end_attempt(const std::string& id, const std::string& state, const json& failures,
                                      const std::string& reason, long long now_ms) {
  Statement st(
      db_,
      "UPDATE service_jobs SET state = :state, owner = NULL, lease_expires_ms = NULL, failures_json = :failures, "
      "reason = :reason, updated_ms = :now WHERE id = :id");
  st.bind(":state", state)
      .bind(":failures", failures.dump())
      .bind(":reason", reason)
      .bind(":now", now_ms)
      .bind(":id", id);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "ending the attempt of " + id);
  return {};
}

DbStatus ServiceJobStore::store_result(const std::string& id, const std::string& owner, const json& result,
                                       long long now_ms) {
  {
    Statement st(db_,
                 "INSERT INTO service_job_results (job_id, result_json, owner, completed_ms) VALUES (:id, :result, "
                 ":owner, :now)");
    st.bind(":id", id).bind(":result", result.dump()).bind(":owner", owner).bind(":now", now_ms);
    if (st.step() != SQLITE_DONE) return sql_error(db_, "storing the result of " + id);
  }
  Statement st(db_,
               "UPDATE service_jobs SET state = 'done', owner = NULL, lease_expires_ms = NULL, updated_ms = :now WHERE "
               "id = :id");
  st.bind(":now", now_ms).bind(":id", id);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "ending job " + id);
  return {};
}

DbStatus ServiceJobStore::counts(long long now_ms, ServiceJobCounts* out) {
  *out = {};
  Statement st(db_,
               "SELECT state, COUNT(*) AS jobs, SUM(state = 'leased' AND lease_expires_ms < :now) AS expired "
               "FROM service_jobs GROUP BY state");
  st.bind(":now", now_ms);
  const int state = st.column("state"), jobs = st.column("jobs"), expired = st.column("expired");
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    const std::string s = st.text(state);
    const long long n = st.integer(jobs);
    if (s == "queued") out->queued = n;
    else if (s == "leased") out->leased = n, out->expired_leases = st.integer(expired);
    else if (s == "done") out->done = n;
    else if (s == "infra_error") out->infra_error = n;
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(db_, "counting jobs");
}

DbStatus ServiceJobStore::outcome(const std::string& id, std::optional<ServiceJobRow>* job,
                                  std::optional<json>* result) {
  job->reset(), result->reset();
  Statement st(db_,
               ("SELECT " + job_columns().list("j") +
                ", r.result_json AS result_json FROM service_jobs j LEFT JOIN service_job_results r ON r.job_id = j.id "
                "WHERE j.id = :id")
                   .c_str());
  st.bind(":id", id);
  const int rc = st.step();
  if (rc == SQLITE_DONE) return {};
  if (rc != SQLITE_ROW) return sql_error(db_, "reading job " + id);
  *job = read_job(st);
  if (const int c = st.column("result_json"); !st.is_null(c)) *result = json::parse(st.text(c), nullptr, false);
  return {};
}

}  // namespace ptxbench

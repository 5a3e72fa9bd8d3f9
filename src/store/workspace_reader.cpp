// Reads a workspace database without writing or migrating it: runs, trajectories and turns.
#include "store/workspace_reader.h"

#include <sqlite3.h>

#include <set>
#include <string_view>

#include "store/run_columns.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;

bool has_table(sqlite3* db, const char* name) {
  Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name");
  st.bind(":name", std::string(name));
  return st.ok() && st.step() == SQLITE_ROW;
}

// The names of `table`'s columns.
DbStatus table_columns(sqlite3* db, const char* table, std::set<std::string>* out) {
  Statement st(db, (std::string("SELECT name FROM pragma_table_info('") + table + "')").c_str());
  if (!st.ok()) return DbStatus::failure(sqlite3_errmsg(db));
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) out->insert(st.text(0));
  return rc == SQLITE_DONE ? DbStatus{} : DbStatus::failure(sqlite3_errmsg(db));
}

}  // namespace

WorkspaceReader::WorkspaceReader(const std::filesystem::path& file) : file_(file) {
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    status_ = DbStatus::failure("cannot open " + file.string() + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
    return;
  }
  sqlite3_busy_timeout(db_, 5000);
  if (auto s = check_schema_readable(db_, file); !s.ok) {
    status_ = s;
    return;
  }
  if (!has_table(db_, "runs") || !has_table(db_, "turns"))
    status_ = DbStatus::failure(
        file.string() +
        " holds no runs (no 'runs'/'turns' tables: only 'ptxbench eval' results; run 'ptxbench run' first)");
}

WorkspaceReader::~WorkspaceReader() { sqlite3_close(db_); }

namespace {

// A statement the report's reader prepares: a failure means the file is not the run store it reads.
DbStatus prepare_failure(sqlite3* db, const std::filesystem::path& file) {
  return DbStatus::failure(file.string() + ": its schema is not the run store this report reads (" +
                           sqlite3_errmsg(db) + "; docs/metrics.md lists the tables and columns)");
}

DbStatus read_failure(sqlite3* db, const std::filesystem::path& file, const std::string& what) {
  return DbStatus::failure(file.string() + ": reading " + what + ": " + sqlite3_errmsg(db));
}

}  // namespace

DbStatus WorkspaceReader::runs(std::vector<RunInfo>* out) {
  if (!status_.ok) return status_;
  const auto& runs = store_detail::run_columns();
  Statement st(db_, runs.select_sql("ORDER BY created_at, id").c_str());
  if (!st.ok()) return prepare_failure(db_, file_);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    RunInfo r;
    std::string bad;
    if (!runs.read(st, &r, &bad))
      return DbStatus::failure(file_.string() + ": run " + r.id + " " + bad + ": stored JSON is malformed");
    out->push_back(std::move(r));
  }
  return rc == SQLITE_DONE ? DbStatus{} : read_failure(db_, file_, "runs");
}

DbStatus WorkspaceReader::run_environment(const std::string& run_id, RunEnvironment* out) {
  if (!status_.ok) return status_;
  Statement st(db_,
               "SELECT json_extract(e.record_json, '$.environment.seed_policy') AS seed_policy, "
               "json_extract(e.record_json, '$.environment.gpu_state_at_start.driver') AS driver "
               "FROM turns t JOIN evaluations e ON e.id = t.evaluation_id WHERE t.run_id = :run_id "
               "AND json_extract(e.record_json, '$.environment.seed_policy') IS NOT NULL LIMIT 1");
  if (!st.ok()) return prepare_failure(db_, file_);
  st.bind(":run_id", run_id);
  int rc = st.step();
  if (rc == SQLITE_ROW) {
    const int policy = st.column("seed_policy"), driver = st.column("driver");
    if (!st.is_null(policy)) out->seed_policy = st.text(policy);
    if (!st.is_null(driver)) out->driver = st.text(driver);
    rc = SQLITE_DONE;
  }
  return rc == SQLITE_DONE ? DbStatus{} : read_failure(db_, file_, "evaluation provenance");
}

DbStatus WorkspaceReader::trajectories(std::vector<TrajectoryRow>* out) {
  if (!status_.ok) return status_;
  const auto columns = store_detail::trajectory_columns().only({"run_id", "problem", "trajectory", "status"});
  Statement st(db_, columns.select_sql("").c_str());
  if (!st.ok()) return prepare_failure(db_, file_);
  int rc;
  std::string unused;
  while ((rc = st.step()) == SQLITE_ROW) {
    TrajectoryRow t;
    columns.read(st, &t, &unused);
    out->push_back(std::move(t));
  }
  return rc == SQLITE_DONE ? DbStatus{} : read_failure(db_, file_, "trajectories");
}

DbStatus WorkspaceReader::turns(bool detail, const std::function<void(ReportedTurn&)>& each) {
  if (!status_.ok) return status_;
  // Every declared turn field the table has (a workspace from before a field was added lacks its
  // column), the payloads (feedback, context, extraction) with the drill-down only.
  std::set<std::string> present;
  if (auto s = table_columns(db_, "turns", &present); !s.ok) return read_failure(db_, file_, "the turns' columns");
  std::set<std::string> payloads;
  for (const auto& f : kTurnFields)
    if (std::string_view(f.storage) == "blob" || std::string_view(f.storage) == "json_text")
      payloads.insert(f.column());
  const auto columns = store_detail::turn_columns().filtered(
      [&](const std::string& name) { return present.count(name) && (detail || !payloads.count(name)); });
  std::string sql = "SELECT " + columns.list("t") +
                    ", e.gpu AS gpu, json_extract(e.record_json, '$.target_seen') AS target_seen, "
                    "json_extract(e.record_json, '$.schema') AS record_schema";
  if (detail) sql += ", c.source AS source, e.record_json AS record_json";
  sql += " FROM turns t LEFT JOIN evaluations e ON e.id = t.evaluation_id";
  if (detail) sql += " LEFT JOIN candidates c ON c.sha256 = t.candidate_sha256";
  sql += " ORDER BY t.run_id, t.problem, t.trajectory, t.turn";
  Statement st(db_, sql.c_str());
  if (!st.ok()) return prepare_failure(db_, file_);
  const int gpu = st.column("gpu"), seen = st.column("target_seen"), schema = st.column("record_schema");
  const int source = st.column("source"), record = st.column("record_json");
  int rc;
  std::string unused;
  while ((rc = st.step()) == SQLITE_ROW) {
    ReportedTurn r;
    columns.read(st, &r.turn, &unused);
    r.gpu = st.text(gpu);
    if (!st.is_null(seen)) r.target_seen = st.integer(seen) != 0;
    r.record_schema = st.opt_integer(schema);
    if (detail) {
      r.source = st.text(source);
      if (!st.is_null(record)) r.record_json = st.text(record);
    }
    each(r);
  }
  return rc == SQLITE_DONE ? DbStatus{} : read_failure(db_, file_, "turns");
}

}  // namespace ptxbench

#include "store/workspace_db.h"

#include <sqlite3.h>

#include "core/error.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS evaluations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  problem TEXT NOT NULL,
  arch TEXT NOT NULL,
  gpu TEXT NOT NULL,
  candidate_sha256 TEXT NOT NULL,
  verdict TEXT NOT NULL,
  target_executed INTEGER NOT NULL,  -- 1 yes, 0 no, -1 unknown
  speedup_geomean REAL,
  record_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS evaluations_problem ON evaluations(problem, id);
CREATE INDEX IF NOT EXISTS evaluations_candidate ON evaluations(candidate_sha256);
)sql";

using sqlite::Statement;

DbStatus sql_error(sqlite3* db, const std::string& what) {
  return DbStatus::failure(what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
}

DbStatus read_rows(sqlite3* db, sqlite3_stmt* st, std::vector<StoredRecord>* out) {
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    StoredRecord r;
    r.id = sqlite3_column_int64(st, 0);
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    json j = json::parse(text ? text : "", nullptr, false);
    if (j.is_discarded()) return DbStatus::failure("evaluation " + std::to_string(r.id) + ": stored record is not JSON");
    try {
      r.record = record_from_json(j);
    } catch (const InputError& e) {
      return DbStatus::failure("evaluation " + std::to_string(r.id) + ": " + e.what());
    }
    out->push_back(std::move(r));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(db, "reading evaluations");
}

}  // namespace

WorkspaceDb::WorkspaceDb(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    status_ = sql_error(db_, "opening " + path.string());
    return;
  }
  sqlite3_busy_timeout(db_, 5000);
  if (auto s = exec(kSchema); !s.ok) status_ = s;
}

WorkspaceDb::~WorkspaceDb() { sqlite3_close(db_); }

DbStatus WorkspaceDb::exec(const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string e = msg ? msg : "unknown error";
    sqlite3_free(msg);
    return DbStatus::failure("SQL error: " + e);
  }
  return {};
}

DbStatus WorkspaceDb::insert(const EvaluationRecord& r, long long* id) {
  if (!status_.ok) return status_;
  Statement st(db_, "INSERT INTO evaluations (created_at, problem, arch, gpu, candidate_sha256, verdict, "
                    "target_executed, speedup_geomean, record_json) VALUES (?,?,?,?,?,?,?,?,?)");
  if (!st.ok()) return sql_error(db_, "preparing insert");
  const std::string text = to_json(r).dump();
  const std::string verdict(to_string(r.verdict));
  sqlite3_bind_text(st.get(), 1, r.created_at.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 2, r.problem.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 3, r.arch.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 4, r.gpu.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 5, r.candidate_sha256.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 6, verdict.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st.get(), 7, r.target_executed ? (*r.target_executed ? 1 : 0) : -1);
  if (r.speedup_geomean) sqlite3_bind_double(st.get(), 8, *r.speedup_geomean);
  else sqlite3_bind_null(st.get(), 8);
  sqlite3_bind_text(st.get(), 9, text.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return sql_error(db_, "inserting evaluation");
  if (id) *id = sqlite3_last_insert_rowid(db_);
  return {};
}

DbStatus WorkspaceDb::get(long long id, StoredRecord* out) {
  if (!status_.ok) return status_;
  Statement st(db_, "SELECT id, record_json FROM evaluations WHERE id = ?");
  if (!st.ok()) return sql_error(db_, "preparing select");
  sqlite3_bind_int64(st.get(), 1, id);
  std::vector<StoredRecord> rows;
  if (auto s = read_rows(db_, st.get(), &rows); !s.ok) return s;
  if (rows.empty()) return DbStatus::failure("no evaluation with id " + std::to_string(id));
  *out = std::move(rows.front());
  return {};
}

DbStatus WorkspaceDb::list(const std::string& problem, int limit, std::vector<StoredRecord>* out) {
  if (!status_.ok) return status_;
  Statement st(db_, "SELECT id, record_json FROM evaluations WHERE (?1 = '' OR problem = ?1) ORDER BY id DESC LIMIT ?2");
  if (!st.ok()) return sql_error(db_, "preparing list");
  sqlite3_bind_text(st.get(), 1, problem.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st.get(), 2, limit);
  return read_rows(db_, st.get(), out);
}

}  // namespace ptxbench

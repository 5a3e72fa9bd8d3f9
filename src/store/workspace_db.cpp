// The evaluations table: every evaluation record as JSON plus the columns queries filter on.
#include "store/workspace_db.h"

#include <sqlite3.h>

#include "core/error.h"
#include "store/content_tables.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;

using store_detail::sql_error;

// Rows of "SELECT id, record_json ...".
DbStatus read_rows(sqlite3* db, Statement& st, std::vector<StoredRecord>* out) {
  const int id_column = st.column("id"), record_column = st.column("record_json");
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    StoredRecord r;
    r.id = st.integer(id_column);
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), record_column));
    json j = json::parse(text ? text : "", nullptr, false);
    if (j.is_discarded())
      return DbStatus::failure("evaluation " + std::to_string(r.id) + ": stored record is not JSON");
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
  if (auto s = migrate_schema(db_, SchemaPart::evaluations, path, "SQL error: "); !s.ok) status_ = s;
}

WorkspaceDb::~WorkspaceDb() { sqlite3_close(db_); }

DbStatus WorkspaceDb::insert(const EvaluationRecord& r, long long* id) {
  if (!status_.ok) return status_;
  Statement st(db_,
               "INSERT INTO evaluations (created_at, problem, arch, gpu, candidate_sha256, verdict, target_executed, "
               "speedup_geomean, record_json) VALUES (:created_at, :problem, :arch, :gpu, :candidate_sha256, :verdict, "
               ":target_executed, :speedup_geomean, :record_json)");
  if (!st.ok()) return sql_error(db_, "preparing insert");
  // Text binds stop at the first NUL, as they always have (sqlite3_bind_text with -1).
  auto c_text = [](const std::string& s) { return std::string(s.c_str()); };
  st.bind(":created_at", c_text(r.created_at)).bind(":problem", c_text(r.problem)).bind(":arch", c_text(r.arch));
  st.bind(":gpu", c_text(r.gpu)).bind(":candidate_sha256", c_text(r.candidate_sha256));
  st.bind(":verdict", std::string(to_string(r.verdict)));
  st.bind(":target_executed", r.target_executed ? (*r.target_executed ? 1 : 0) : -1);  // 1 yes, 0 no, -1 unknown
  st.bind(":speedup_geomean", r.speedup_geomean);
  st.bind(":record_json", c_text(to_json(r).dump()));
  if (sqlite3_step(st.get()) != SQLITE_DONE) return sql_error(db_, "inserting evaluation");
  if (id) *id = sqlite3_last_insert_rowid(db_);
  return {};
}

DbStatus WorkspaceDb::get(long long id, StoredRecord* out) {
  if (!status_.ok) return status_;
  Statement st(db_, "SELECT id, record_json FROM evaluations WHERE id = :id");
  if (!st.ok()) return sql_error(db_, "preparing select");
  st.bind(":id", id);
  std::vector<StoredRecord> rows;
  if (auto s = read_rows(db_, st, &rows); !s.ok) return s;
  if (rows.empty()) return DbStatus::failure("no evaluation with id " + std::to_string(id));
  *out = std::move(rows.front());
  return {};
}

DbStatus WorkspaceDb::list(const std::string& problem, int limit, std::vector<StoredRecord>* out) {
  if (!status_.ok) return status_;
  Statement st(db_,
               "SELECT id, record_json FROM evaluations WHERE (:problem = '' OR problem = :problem) ORDER BY id DESC "
               "LIMIT :limit");
  if (!st.ok()) return sql_error(db_, "preparing list");
  st.bind(":problem", std::string(problem.c_str())).bind(":limit", limit);
  return read_rows(db_, st, out);
}

}  // namespace ptxbench

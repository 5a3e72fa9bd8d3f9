// The content-addressed blobs and candidates tables: written once by sha256, read back.
#include "store/content_tables.h"

#include <sqlite3.h>

#include "core/content_hash.h"
#include "core/timestamp.h"
#include "store/sqlite_statement.h"

namespace ptxbench::store_detail {

using sqlite::Statement;

DbStatus sql_error(sqlite3* db, const std::string& what) {
  return DbStatus::failure(what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
}

DbStatus put_blob(sqlite3* db, const std::string& bytes, std::string* sha256) {
  *sha256 = content_sha256(bytes);
  Statement st(db, "INSERT OR IGNORE INTO blobs (sha256, bytes) VALUES (?, ?)");
  if (!st.ok()) return sql_error(db, "preparing blob insert");
  st.bind(1, *sha256).bind_blob(2, bytes);
  if (st.step() != SQLITE_DONE) return sql_error(db, "storing blob");
  return {};
}

DbStatus get_blob(sqlite3* db, const std::string& sha256, std::string* out) {
  Statement st(db, "SELECT bytes FROM blobs WHERE sha256 = ?");
  if (!st.ok()) return sql_error(db, "preparing blob read");
  st.bind(1, sha256);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no stored text with sha256 " + sha256);
  *out = st.blob(0);  // the one column selected
  return {};
}

DbStatus put_candidate(sqlite3* db, const std::string& source, std::string* sha256) {
  *sha256 = content_sha256(source);
  Statement st(db, "INSERT OR IGNORE INTO candidates (sha256, source, size, first_seen_at) VALUES (?,?,?,?)");
  if (!st.ok()) return sql_error(db, "preparing candidate insert");
  st.bind(1, *sha256).bind_blob(2, source).bind(3, static_cast<long long>(source.size())).bind(4, utc_timestamp_ms());
  if (st.step() != SQLITE_DONE) return sql_error(db, "storing candidate");
  return {};
}

DbStatus get_candidate(sqlite3* db, const std::string& sha256, std::string* out) {
  Statement st(db, "SELECT source FROM candidates WHERE sha256 = ?");
  if (!st.ok()) return sql_error(db, "preparing candidate read");
  st.bind(1, sha256);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no stored candidate with sha256 " + sha256);
  *out = st.blob(0);  // the one column selected
  return {};
}

}  // namespace ptxbench::store_detail

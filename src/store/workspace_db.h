// The workspace database (SQLite): every evaluation record, as JSON plus the columns that
// queries filter on. Errors at this boundary are typed statuses, not exceptions.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/record.h"

struct sqlite3;

namespace ptxbench {

struct DbStatus {
  bool ok = true;
  std::string error;  // what failed, with SQLite's message
  static DbStatus failure(std::string e) { return {false, std::move(e)}; }
};

struct StoredRecord {
  long long id = 0;
  EvaluationRecord record;
};

class WorkspaceDb {
 public:
  // Opens (creating if needed) <path> and brings its evaluations table up to date
  // (schema_migrations.h); check status() before use.
  explicit WorkspaceDb(const std::filesystem::path& path);
  ~WorkspaceDb();
  WorkspaceDb(const WorkspaceDb&) = delete;
  WorkspaceDb& operator=(const WorkspaceDb&) = delete;

  const DbStatus& status() const { return status_; }
  // The open connection, for the store's other tables in the same file (run_store.cpp), so their
  // rows and an evaluation can commit in one transaction. insert() opens no transaction itself.
  sqlite3* handle() const { return db_; }
  DbStatus insert(const EvaluationRecord& r, long long* id = nullptr);
  DbStatus get(long long id, StoredRecord* out);
  // Most recent first; empty problem means all.
  DbStatus list(const std::string& problem, int limit, std::vector<StoredRecord>* out);

 private:
  sqlite3* db_ = nullptr;
  DbStatus status_;
};

}  // namespace ptxbench

// The workspace's content-addressed tables, shared by every store that keeps texts or kernels in
// them (run_store.h, fixit_store.h): blobs (request and response bytes, system texts) and
// candidates (kernel sources), each keyed by the sha256 of its bytes and written once. The schema
// of both is migration 2 in schema_migrations.cpp; callers hold their store's lock.
#pragma once
#include <string>

#include "store/workspace_db.h"

struct sqlite3;

namespace ptxbench::store_detail {

DbStatus sql_error(sqlite3* db, const std::string& what);
DbStatus put_blob(sqlite3* db, const std::string& bytes, std::string* sha256);
DbStatus get_blob(sqlite3* db, const std::string& sha256, std::string* out);
DbStatus put_candidate(sqlite3* db, const std::string& source, std::string* sha256);
DbStatus get_candidate(sqlite3* db, const std::string& sha256, std::string* out);

}  // namespace ptxbench::store_detail

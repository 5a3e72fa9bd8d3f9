// The workspace database's schema, as numbered migrations (schema_migrations.cpp holds them all:
// the one place where the store's tables are created or changed). Each migration belongs to one
// part of the store, and a part's migrations are applied when that part first opens the file (an
// `eval`-only workspace holds the evaluations and nothing else). The numbers applied are recorded
// in the table schema_migrations; a workspace from before the numbering records none, and its
// tables are brought up to date by the same migrations (each creates only what is missing).
// A database that records a number this build does not know was written by a newer ptxbench and
// is refused, saying so.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "store/workspace_db.h"

struct sqlite3;

namespace ptxbench {

enum class SchemaPart {
  evaluations,      // store/workspace_db.h: `ptxbench eval`'s records
  run_store,        // store/run_store.h: runs, trajectories, model calls, turns, candidates, blobs, events
  fixit,            // store/fixit_store.h: builds, items, attempts, records
  service_jobs,     // store/service_job_store.h: the GPU service's SQLite job queue
  library_timings,  // store/library_timing_store.h: the library's clean timings, kept across evaluations
};

// A declared field's column type as the ALTER TABLE that adds it gives it, from its storage
// (store/turn_row.h, store/fixit_rows.h): "REAL", "TEXT NOT NULL DEFAULT ''", ... Throws Error on an unknown storage.
std::string column_definition(std::string_view storage);

// The newest migration this build knows.
int latest_schema_migration();

// Applies `part`'s migrations that the database does not record yet, in number order, each with its
// record in one transaction (another process opening the same file at once waits, then finds it
// applied). A failure is SQLite's message after `sqlite_prefix`, or names the newer migration the
// file records.
DbStatus migrate_schema(sqlite3* db, SchemaPart part, const std::filesystem::path& file,
                        const std::string& sqlite_prefix);

// A writer's connection: WAL (readers such as `runs list` or a second terminal never block a run)
// and NORMAL sync (durable against a killed process, which resume promises), then `part`'s
// migrations. Errors as migrate_schema's.
DbStatus prepare_writer(sqlite3* db, SchemaPart part, const std::filesystem::path& file,
                        const std::string& sqlite_prefix);

// Read-only: whether this build can read the database (it records no migration newer than this
// build's). Never writes.
DbStatus check_schema_readable(sqlite3* db, const std::filesystem::path& file);

}  // namespace ptxbench

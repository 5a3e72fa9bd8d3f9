// The workspace database's numbered migrations and applying them, declared fields' ALTERs included.
#include "store/schema_migrations.h"

#include <sqlite3.h>

#include <algorithm>
#include <set>
#include <vector>

#include "core/error.h"
#include "core/timestamp.h"
#include "store/sqlite_statement.h"
#include "store/fixit_rows.h"
#include "store/turn_row.h"

namespace ptxbench {
namespace {

struct HandWritten {
  int number;
  SchemaPart part;
  const char* description;
  const char* sql;
};

struct Migration {
  int number;
  SchemaPart part;
  std::string description, sql;
};

// Every change to the workspace's tables but a declared field's new column (below), in order.
// Append a migration; never edit one that has shipped (a workspace that recorded it will not run it
// again). Migrations 1-4 are the schema as it stood when the numbering began: they create what is
// missing, so a workspace from before then opens as it is.
constexpr HandWritten kMigrations[] = {
    {1, SchemaPart::evaluations, "evaluations", R"sql(
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
)sql"},
    {2, SchemaPart::run_store, "the run store", R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,            -- running, complete, stopped
  stop_reason TEXT NOT NULL,
  model TEXT NOT NULL,             -- PROVIDER:MODEL
  arch TEXT NOT NULL,
  knowledge TEXT NOT NULL,
  problems TEXT NOT NULL,          -- comma-separated
  trajectories INTEGER NOT NULL,   -- per problem
  turns INTEGER NOT NULL,          -- counted turns per trajectory
  identity_sha256 TEXT NOT NULL,
  config_json TEXT NOT NULL,
  provenance_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trajectories (
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- 0-based
  turns_done INTEGER NOT NULL,     -- counted turns with phase done
  status TEXT NOT NULL,            -- open, complete
  PRIMARY KEY (run_id, problem, trajectory)
);
CREATE TABLE IF NOT EXISTS blobs (
  sha256 TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS candidates (
  sha256 TEXT PRIMARY KEY,
  source BLOB NOT NULL,
  size INTEGER NOT NULL,
  first_seen_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS model_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  attempt INTEGER NOT NULL,        -- 0-based per turn, uncounted attempts included
  started_at TEXT NOT NULL,
  seconds REAL NOT NULL,
  outcome TEXT NOT NULL,           -- ProviderOutcome
  finish_reason TEXT NOT NULL,
  model TEXT NOT NULL,
  http_status INTEGER NOT NULL,
  attempts INTEGER NOT NULL,       -- HTTP attempts inside the client (its own retries)
  error TEXT NOT NULL,
  retries_json TEXT NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,   -- NULL: not reported
  request_sha256 TEXT NOT NULL REFERENCES blobs(sha256),   -- the exact bytes sent
  request_is_canonical INTEGER NOT NULL,                   -- 1: our request JSON (the client sent no bytes)
  request_json TEXT NOT NULL,      -- {"system_sha256", "messages", "options"}
  response_sha256 TEXT NOT NULL REFERENCES blobs(sha256),  -- the exact bytes received
  content BLOB NOT NULL,
  reasoning BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_turn ON model_calls(run_id, problem, trajectory, turn);
CREATE TABLE IF NOT EXISTS turns (
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- 0-based
  turn INTEGER NOT NULL,           -- 0-based
  phase TEXT NOT NULL,             -- judging (reply stored, not judged yet), done
  state TEXT NOT NULL,             -- verdict, no_code, a provider outcome, or pending
  provider_outcome TEXT NOT NULL,
  model_call_id INTEGER NOT NULL REFERENCES model_calls(id),
  candidate_sha256 TEXT REFERENCES candidates(sha256),
  extraction_json TEXT NOT NULL,
  evaluation_id INTEGER REFERENCES evaluations(id),
  reused_evaluation INTEGER NOT NULL,
  verdict TEXT,
  target_static INTEGER, target_executed INTEGER, target_correct INTEGER,  -- NULL: unknown / not judged
  speedup_geomean REAL,
  feedback BLOB NOT NULL,
  feedback_version TEXT NOT NULL,
  context_json TEXT NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
  reasoning_chars INTEGER NOT NULL,
  cost_usd REAL,
  model_seconds REAL NOT NULL, compile_wait_seconds REAL NOT NULL, prepare_seconds REAL NOT NULL,
  build_seconds REAL NOT NULL, gpu_wait_seconds REAL NOT NULL, gpu_seconds REAL NOT NULL,
  started_at TEXT NOT NULL, replied_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  PRIMARY KEY (run_id, problem, trajectory, turn)
);
CREATE INDEX IF NOT EXISTS turns_candidate ON turns(run_id, problem, candidate_sha256);
CREATE TABLE IF NOT EXISTS turn_evaluations (
  run_id TEXT NOT NULL,
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
  kind TEXT NOT NULL,              -- turn (what the model was told), reused, rescore
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_evaluations_turn ON turn_evaluations(run_id, problem, trajectory, turn);
CREATE TABLE IF NOT EXISTS run_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,              -- start, resume, stop, complete, infra_error, quota, retry, store_error, ...
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- -1: not about one trajectory
  turn INTEGER NOT NULL,
  message TEXT NOT NULL
);
)sql"},
    {3, SchemaPart::fixit, "the Fixit tables", R"sql(
CREATE TABLE IF NOT EXISTS fixit_builds (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,            -- running, complete, stopped
  stop_reason TEXT NOT NULL,
  recipe_name TEXT NOT NULL,
  recipe_sha256 TEXT NOT NULL,
  recipe_text TEXT NOT NULL,       -- the recipe file's bytes
  template TEXT NOT NULL,          -- fixit, kernelgen
  teacher TEXT NOT NULL,           -- PROVIDER:MODEL or ''
  config_json TEXT NOT NULL,
  summary_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fixit_items (
  build_id TEXT NOT NULL REFERENCES fixit_builds(id),
  item_key TEXT NOT NULL,
  ordinal INTEGER NOT NULL,        -- within its problem
  problem TEXT NOT NULL,
  split TEXT NOT NULL,
  template TEXT NOT NULL,
  error_class TEXT NOT NULL,
  signature TEXT NOT NULL,
  status TEXT NOT NULL,            -- pending, record, dropped, refused, skipped
  reason TEXT NOT NULL,
  kernel_hash TEXT NOT NULL,
  fix_source TEXT NOT NULL,        -- trajectory, teacher, ''
  source_json TEXT NOT NULL,
  context_json TEXT NOT NULL,
  error_json TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key)
);
CREATE TABLE IF NOT EXISTS fixit_attempts (
  build_id TEXT NOT NULL,
  item_key TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- trajectory, teacher, explain
  teacher_index INTEGER NOT NULL,
  phase TEXT NOT NULL,             -- replied, judged, done
  prompt_version TEXT NOT NULL,
  source_turn TEXT NOT NULL,
  model TEXT NOT NULL, outcome TEXT NOT NULL, finish_reason TEXT NOT NULL, error TEXT NOT NULL,
  http_status INTEGER NOT NULL,
  seconds REAL NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
  cost_usd REAL,
  request_json TEXT NOT NULL,
  request_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  response_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  system_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  content BLOB NOT NULL,
  reasoning BLOB NOT NULL,
  candidate_sha256 TEXT REFERENCES candidates(sha256),
  evaluation_id INTEGER REFERENCES evaluations(id),
  verdict TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  why TEXT NOT NULL,
  explanation BLOB NOT NULL,
  feedback BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key, attempt)
);
CREATE TABLE IF NOT EXISTS fixit_records (
  build_id TEXT NOT NULL,
  item_key TEXT NOT NULL,
  record_json TEXT NOT NULL,
  in_dataset INTEGER NOT NULL,
  excluded_reason TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key)
);
)sql"},
    {4, SchemaPart::service_jobs, "the service's job queue", R"sql(
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
)sql"},
    {5, SchemaPart::library_timings, "the library's clean timings, kept across evaluations", R"sql(
CREATE TABLE IF NOT EXISTS library_timings (
  gpu_uuid TEXT NOT NULL,              -- NVML's (else CUDA's) UUID of the GPU
  driver TEXT NOT NULL,                -- NVML's driver version
  clocks TEXT NOT NULL,                -- JSON: clock and power state (application clocks, power limit, persistence)
  library TEXT NOT NULL,               -- cuBLASLt, cuDNN
  library_version TEXT NOT NULL,
  plan TEXT NOT NULL,                  -- JSON: the plan/algorithm identity the worker reported for this shape
  problem TEXT NOT NULL,
  workload TEXT NOT NULL,              -- JSON: the worker's workload and its options (operation, dtypes)
  shape TEXT NOT NULL,                 -- JSON
  timing_config TEXT NOT NULL,         -- JSON: the timing config the clean timing ran under
  format INTEGER NOT NULL,             -- the row's format (store/library_timing_store.h); another is ignored
  median_ms REAL NOT NULL,
  median_error REAL NOT NULL,          -- relative standard error of the median, from the MAD
  samples INTEGER NOT NULL,
  sm_clock_mhz REAL NOT NULL,
  measured_ms INTEGER NOT NULL,        -- Unix ms
  measured_at TEXT NOT NULL,           -- UTC
  PRIMARY KEY (gpu_uuid, driver, clocks, library, library_version, plan, problem, workload, shape, timing_config)
);
CREATE INDEX IF NOT EXISTS library_timings_lookup ON library_timings(problem, shape, gpu_uuid);
)sql"},
    {6, SchemaPart::library_timings, "a clean timing's first samples' median, what a short check is compared with",
     R"sql(
ALTER TABLE library_timings ADD COLUMN lead_median_ms REAL NOT NULL DEFAULT 0;  -- 0: none (rows from before)
ALTER TABLE library_timings ADD COLUMN lead_samples INTEGER NOT NULL DEFAULT 0;
)sql"},
};

// A declared field's column (store/turn_row.h, store/fixit_rows.h) with what adds it.
struct DeclaredColumn {
  const char* table;
  SchemaPart part;
  std::string column;
  const char* storage;
  int since;
  int created;  // the hand-written migration that created the table with its first columns
};

std::vector<DeclaredColumn> declared_columns() {
  std::vector<DeclaredColumn> out;
  for (const auto& f : kTurnFields) out.push_back({"turns", SchemaPart::run_store, f.column(), f.storage, f.since, 2});
  for (const auto& f : kFixitFields)
    if (std::string_view(f.storage) != "none")
      out.push_back({f.table, SchemaPart::fixit, f.column, f.storage, f.since, 3});
  return out;
}

// A field a row declares with `since` above the hand-written migrations is added to its table by an
// ALTER TABLE of that number; fields sharing a number share the migration (of one part).
std::vector<Migration> make_migrations() {
  std::vector<Migration> all;
  int hand_written = 0;
  for (const auto& m : kMigrations) {
    all.push_back({m.number, m.part, m.description, m.sql});
    hand_written = std::max(hand_written, m.number);
  }
  for (const auto& f : declared_columns()) {
    if (f.since <= f.created) continue;  // the table's CREATE made it
    if (f.since <= hand_written)
      throw Error("store: the field " + std::string(f.table) + "." + f.column + " declares migration " +
                  std::to_string(f.since) + ", which is a hand-written one; a new field takes a number above " +
                  std::to_string(hand_written));
    auto it = std::find_if(all.begin(), all.end(), [&](const Migration& m) { return m.number == f.since; });
    if (it == all.end())
      it = all.insert(all.end(), Migration{f.since, f.part, std::string(f.table) + ": new columns:", ""});
    if (it->part != f.part)
      throw Error("store: migration " + std::to_string(f.since) + " would change tables of two parts of the store (" +
                  f.table + ": give its new fields their own number)");
    it->description += " " + f.column;
    it->sql +=
        "ALTER TABLE " + std::string(f.table) + " ADD COLUMN " + f.column + " " + column_definition(f.storage) + ";\n";
  }
  std::sort(all.begin(), all.end(), [](const Migration& a, const Migration& b) { return a.number < b.number; });
  return all;
}

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all = make_migrations();
  return all;
}

constexpr const char* kRecordTable = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  number INTEGER PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at TEXT NOT NULL
);
)sql";

bool has_record_table(sqlite3* db) {
  sqlite::Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
  return st.ok() && st.step() == SQLITE_ROW;
}

// The numbers the database records, ascending (none before the numbering began).
DbStatus recorded(sqlite3* db, const std::filesystem::path& file, std::vector<std::pair<int, std::string>>* out) {
  out->clear();
  if (!has_record_table(db)) return {};
  sqlite::Statement st(db, "SELECT number, description FROM schema_migrations ORDER BY number");
  if (!st.ok()) return DbStatus::failure(file.string() + ": reading its schema migrations: " + sqlite3_errmsg(db));
  int rc;
  const int number = st.column("number"), description = st.column("description");
  while ((rc = st.step()) == SQLITE_ROW) out->emplace_back(static_cast<int>(st.integer(number)), st.text(description));
  if (rc != SQLITE_DONE)
    return DbStatus::failure(file.string() + ": reading its schema migrations: " + sqlite3_errmsg(db));
  return {};
}

DbStatus refuse_newer(const std::vector<std::pair<int, std::string>>& done, const std::filesystem::path& file) {
  for (const auto& [number, description] : done)
    if (number > latest_schema_migration())
      return DbStatus::failure(file.string() + " was written by a newer ptxbench: its schema has migration " +
                               std::to_string(number) + " (" + description +
                               "), and this build knows migrations up to " + std::to_string(latest_schema_migration()) +
                               "; open it with that version or a newer one");
  return {};
}

bool has(const std::vector<std::pair<int, std::string>>& done, int number) {
  return std::any_of(done.begin(), done.end(), [&](const auto& d) { return d.first == number; });
}

DbStatus exec(sqlite3* db, const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) == SQLITE_OK) return {};
  std::string e = msg ? msg : sqlite3_errmsg(db);
  sqlite3_free(msg);
  return DbStatus::failure(e);
}

}  // namespace

std::string column_definition(std::string_view storage) {
  if (storage == "text") return "TEXT NOT NULL DEFAULT ''";
  if (storage == "opt_text") return "TEXT";
  if (storage == "blob") return "BLOB NOT NULL DEFAULT X''";
  if (storage == "integer" || storage == "boolean") return "INTEGER NOT NULL DEFAULT 0";
  if (storage == "opt_integer" || storage == "opt_boolean") return "INTEGER";
  if (storage == "real") return "REAL NOT NULL DEFAULT 0";
  if (storage == "opt_real") return "REAL";
  if (storage == "json_text" || storage == "json_or_empty") return "TEXT NOT NULL DEFAULT '{}'";
  throw Error("store: no column type for the storage '" + std::string(storage) + "'");
}

int latest_schema_migration() {
  int n = 0;
  for (const auto& m : migrations()) n = std::max(n, m.number);
  return n;
}

DbStatus check_schema_readable(sqlite3* db, const std::filesystem::path& file) {
  std::vector<std::pair<int, std::string>> done;
  if (auto s = recorded(db, file, &done); !s.ok) return s;
  return refuse_newer(done, file);
}

DbStatus migrate_schema(sqlite3* db, SchemaPart part, const std::filesystem::path& file,
                        const std::string& sqlite_prefix) {
  std::vector<std::pair<int, std::string>> done;
  if (auto s = recorded(db, file, &done); !s.ok) return s;
  if (auto s = refuse_newer(done, file); !s.ok) return s;
  auto failed = [&](const std::string& why) { return DbStatus::failure(sqlite_prefix + why); };
  for (const auto& m : migrations()) {
    if (m.part != part || has(done, m.number)) continue;
    sqlite::Transaction tx(db);
    if (!tx.began()) return failed(sqlite3_errmsg(db));
    // Another process may have applied it since we looked.
    if (auto s = exec(db, kRecordTable); !s.ok) return failed(s.error);
    if (auto s = recorded(db, file, &done); !s.ok) return s;
    if (has(done, m.number)) continue;
    if (auto s = exec(db, m.sql.c_str()); !s.ok) return failed(s.error);
    sqlite::Statement st(
        db, "INSERT INTO schema_migrations (number, description, applied_at) VALUES (:number, :description, :at)");
    st.bind(":number", m.number).bind(":description", m.description).bind(":at", utc_timestamp_ms());
    if (st.step() != SQLITE_DONE) return failed(sqlite3_errmsg(db));
    if (!tx.commit()) return failed(sqlite3_errmsg(db));
  }
  return {};
}

DbStatus prepare_writer(sqlite3* db, SchemaPart part, const std::filesystem::path& file,
                        const std::string& sqlite_prefix) {
  for (const char* sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"}) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      DbStatus s = DbStatus::failure(sqlite_prefix + (msg ? msg : "unknown error"));
      sqlite3_free(msg);
      return s;
    }
  }
  return migrate_schema(db, part, file, sqlite_prefix);
}

}  // namespace ptxbench

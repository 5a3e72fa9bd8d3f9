// The workspace schema's numbered migrations (store/schema_migrations.h): a workspace from before the
// numbering opens and is brought up to date, each part migrates only when it is opened, and a
// workspace a newer ptxbench wrote is refused by every store and by the report's reader, saying so.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "core/error.h"
#include "metrics/load_workspace.h"
#include "service/queue/sqlite_job_queue.h"
#include "store/fixit_store.h"
#include "store/library_timing_store.h"
#include "store/run_store.h"
#include "store/schema_migrations.h"
#include "support/agent_run_store_schema.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

void exec(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  const std::string error = msg ? msg : "";
  sqlite3_free(msg);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << error << "\n" << sql;
}

// The migration numbers a database records, comma-separated ("" when it records none).
std::string recorded(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, "SELECT number FROM schema_migrations ORDER BY number", -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW) out += (out.empty() ? "" : ",") + std::to_string(sqlite3_column_int(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// The evaluations table as `ptxbench eval` created it before the numbering.
constexpr const char* kLegacyEvaluations = R"sql(
CREATE TABLE evaluations (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL, problem TEXT NOT NULL,
  arch TEXT NOT NULL, gpu TEXT NOT NULL, candidate_sha256 TEXT NOT NULL, verdict TEXT NOT NULL,
  target_executed INTEGER NOT NULL, speedup_geomean REAL, record_json TEXT NOT NULL);
)sql";

}  // namespace

TEST(SchemaMigrations, AWorkspaceFromBeforeTheNumberingOpensAndIsBroughtUpToDate) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  exec(file, kLegacyEvaluations);
  exec(file, test::kAgentRunStoreSchema);  // runs, trajectories, candidates, turns: no model_calls, blobs, events
  exec(
      file,
      "INSERT INTO runs VALUES ('old', '2026-01-01', '2026-01-01', 'stopped', '', 'files:x', 'sm_90a', 'params', "
      "'gemm,mha_fwd', 1, 2, 'abc', '{\"k\": 1}', '{}');"
      "INSERT INTO trajectories VALUES ('old', 'gemm', 0, 1, 'open');"
      "INSERT INTO turns VALUES ('old', 'gemm', 0, 0, 'done', 'compile_error', 'ok', 1, NULL, '{}', NULL, 0, "
      "'compile_error', NULL, NULL, NULL, NULL, 'fix it', 'feedback/1', '{}', 10, 20, NULL, 7, NULL, 1, 0, 0, 0, 0, 0, "
      "'', '', '');");
  EXPECT_EQ(recorded(file), "");
  {
    RunStore store(file);
    ASSERT_TRUE(store.status().ok) << store.status().error;
    std::vector<RunInfo> runs;
    ASSERT_TRUE(store.list_runs(&runs).ok);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].problems, (std::vector<std::string>{"gemm", "mha_fwd"}));
    EXPECT_EQ(runs[0].config["k"], 1);
    std::vector<TurnRow> turns;
    ASSERT_TRUE(store.load_turns("old", &turns).ok);
    ASSERT_EQ(turns.size(), 1u);
    EXPECT_EQ(turns[0].feedback, "fix it");
    EXPECT_EQ(turns[0].reasoning_chars, 7);
    EXPECT_FALSE(turns[0].cached_input_tokens);  // migration 7 added the column: NULL, not reported
    EXPECT_FALSE(turns[0].target_executed);
    // The tables it lacked are there now.
    ASSERT_TRUE(store.add_event({0, "old", "", "resume", "opened by a newer build", "", -1, -1}).ok);
    std::vector<RunEvent> events;
    ASSERT_TRUE(store.load_events("old", &events).ok);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].message, "opened by a newer build");
  }
  EXPECT_EQ(recorded(file), "1,2,7");  // evaluations and the run store; the Fixit and queue parts were not opened
  { RunStore again(file); }
  EXPECT_EQ(recorded(file), "1,2,7");
  {
    FixitStore fixit(file);
    ASSERT_TRUE(fixit.status().ok) << fixit.status().error;
  }
  EXPECT_EQ(recorded(file), "1,2,3,7");
  {
    SqliteJobQueue queue(file);
    ASSERT_TRUE(queue.status().ok) << queue.status().error;
  }
  EXPECT_EQ(recorded(file), "1,2,3,4,7");
  {
    LibraryTimingStore timings(file);
    ASSERT_TRUE(timings.status().ok) << timings.status().error;
  }
  EXPECT_EQ(recorded(file), "1,2,3,4,5,6,7");
  EXPECT_EQ(latest_schema_migration(), 7);
  // The report reads it too.
  const auto set = metrics::load_workspace(file);
  ASSERT_EQ(set.turns.size(), 1u);
  EXPECT_EQ(set.turns[0].stored.feedback, "");  // without the drill-down
}

TEST(SchemaMigrations, AnEvalOnlyWorkspaceHoldsTheEvaluationsAlone) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  {
    WorkspaceDb db(file);
    ASSERT_TRUE(db.status().ok) << db.status().error;
  }
  EXPECT_EQ(recorded(file), "1");
  try {
    metrics::load_workspace(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no runs"), std::string::npos) << e.what();
  }
}

TEST(SchemaMigrations, AWorkspaceANewerPtxbenchWroteIsRefusedSayingWhy) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  {
    RunStore store(file);
    ASSERT_TRUE(store.status().ok) << store.status().error;
  }
  exec(file,
       "INSERT INTO schema_migrations (number, description, applied_at) VALUES (99, 'a table from the future', '');");
  auto says_why = [](const std::string& error) {
    EXPECT_NE(error.find("written by a newer ptxbench"), std::string::npos) << error;
    EXPECT_NE(error.find("migration 99 (a table from the future)"), std::string::npos) << error;
    EXPECT_NE(error.find("up to " + std::to_string(latest_schema_migration())), std::string::npos) << error;
  };
  {
    WorkspaceDb db(file);
    ASSERT_FALSE(db.status().ok);
    says_why(db.status().error);
  }
  {
    RunStore store(file);
    ASSERT_FALSE(store.status().ok);
    says_why(store.status().error);
  }
  {
    FixitStore fixit(file);
    ASSERT_FALSE(fixit.status().ok);
    says_why(fixit.status().error);
  }
  {
    SqliteJobQueue queue(file);
    ASSERT_FALSE(queue.status().ok);
    says_why(queue.status().error);
  }
  try {
    metrics::load_workspace(file);
    FAIL() << "the report read a workspace from a newer ptxbench";
  } catch (const InputError& e) {
    says_why(e.what());
  }
  EXPECT_EQ(recorded(file), "1,2,7,99");  // nothing applied, nothing removed
}

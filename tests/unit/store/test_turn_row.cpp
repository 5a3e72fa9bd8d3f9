// The turn row's one declaration (store/turn_row.h) against what is made from it: the turns table
// the migrations leave (every declared field a column of the declared type, no column undeclared),
// and the JSON both ways (the run export's keys and the report's columns) giving back every field.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>

#include "core/error.h"
#include "store/run_store.h"
#include "store/schema_migrations.h"
#include "store/turn_json.h"
#include "store/turn_row.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

struct ColumnType {
  std::string type;
  bool not_null = false;
};

std::map<std::string, ColumnType> turns_table(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::map<std::string, ColumnType> out;
  if (sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\" FROM pragma_table_info('turns')", -1, &st, nullptr) ==
      SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = {
          reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), sqlite3_column_int(st, 2) != 0};
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// A row whose every field differs from its initial value.
TurnRow every_field_set() {
  TurnRow t;
  t.run_id = "r1", t.problem = "gemm", t.trajectory = 2, t.turn = 3, t.phase = "judging", t.state = "correct";
  t.provider_outcome = "ok", t.verdict = "correct", t.target_static = true, t.target_executed = false;
  t.target_correct = false, t.speedup_geomean = 1.5, t.input_tokens = 100, t.reasoning_tokens = 40;
  t.reasoning_chars = 120, t.output_tokens = 60, t.cost_usd = 0.25, t.model_seconds = 1, t.compile_wait_seconds = 2;
  t.prepare_seconds = 3, t.build_seconds = 4, t.gpu_wait_seconds = 5, t.gpu_seconds = 6;
  t.started_at = "a", t.replied_at = "b", t.finished_at = "c", t.context = {{"full_turns", 2}};
  t.extraction = {{"blocks", 1}}, t.candidate_sha256 = "abc", t.feedback = "compile error", t.feedback_version = "3";
  t.evaluation_id = 7, t.reused_evaluation = true, t.model_call_id = 9, t.cached_input_tokens = 30;
  return t;
}

}  // namespace

TEST(TurnRow, TheMigratedTurnsTableHoldsEveryDeclaredFieldAndNothingElse) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  {
    RunStore store(file);
    ASSERT_TRUE(store.status().ok) << store.status().error;
  }
  auto table = turns_table(file);
  ASSERT_FALSE(table.empty());
  for (const auto& f : kTurnFields) {
    SCOPED_TRACE(f.column());
    auto it = table.find(f.column());
    ASSERT_NE(it, table.end()) << "a declared field without its column";
    const std::string declared = column_definition(f.storage);
    EXPECT_EQ(it->second.type, declared.substr(0, declared.find(' ')));
    EXPECT_EQ(it->second.not_null, declared.find("NOT NULL") != std::string::npos);
    table.erase(it);
  }
  for (const auto& [name, type] : table) ADD_FAILURE() << "column " << name << " of turns is not declared";
}

TEST(TurnRow, EveryFieldsMigrationIsOneThisBuildAppliesAndAnUnknownStorageIsRefused) {
  for (const auto& f : kTurnFields) EXPECT_LE(f.since, latest_schema_migration()) << f.member;
  EXPECT_THROW(column_definition("no_such_storage"), Error);
}

TEST(TurnRow, TheExportKeysGiveBackEveryExportedField) {
  const TurnRow t = every_field_set();
  json j = json::object();
  put_turn_fields(t, TurnKeys::export_keys, j);
  EXPECT_EQ(j["tokens"]["reasoning"], 40);
  EXPECT_EQ(j["timings"]["gpu_s"], 6.0);
  EXPECT_EQ(j["tokens"]["cached_input"], 30);
  EXPECT_FALSE(j.contains("run_id"));  // the run's id is the export's run object
  TurnRow back;
  get_turn_fields(j, TurnKeys::export_keys, &back);
  json again = json::object();
  put_turn_fields(back, TurnKeys::export_keys, again);
  EXPECT_EQ(again, j);
  EXPECT_EQ(back.speedup_geomean, 1.5);
  EXPECT_EQ(back.feedback, "compile error");
  EXPECT_FALSE(back.candidate_sha256);  // the export's candidate object carries it, not a key of its own
}

TEST(TurnRow, TheReportColumnsGiveBackTheReportedFields) {
  const TurnRow t = every_field_set();
  json j = json::object();
  put_turn_fields(t, TurnKeys::report_columns, j);
  for (const auto& f : kTurnFields) EXPECT_EQ(j.contains(f.member), f.report) << f.member;
  TurnRow back;
  get_turn_fields(j, TurnKeys::report_columns, &back);
  EXPECT_EQ(back.reasoning_tokens, 40);
  EXPECT_EQ(back.reasoning_chars, 120);
  EXPECT_EQ(back.target_executed, false);
}

TEST(TurnRow, AValueOfTheWrongTypeNamesItsKey) {
  TurnRow t;
  try {
    get_turn_fields(json{{"tokens", {{"reasoning", "many"}}}}, TurnKeys::export_keys, &t);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'tokens.reasoning' must be a non-negative integer"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(get_turn_fields(json{{"reasoning_chars", -1}}, TurnKeys::report_columns, &t), InputError);
  // Absent and null leave a field as it is.
  t.reasoning_tokens = 5;
  get_turn_fields(json{{"tokens", {{"reasoning", nullptr}}}}, TurnKeys::export_keys, &t);
  EXPECT_EQ(t.reasoning_tokens, 5);
}

// The Fixit tables' one declaration (store/fixit_rows.h) against the tables the migrations leave:
// every stored field a column of the declared type, no column undeclared; and a row of every table
// written and read back through the columns made from it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>

#include "store/fixit_rows.h"
#include "store/fixit_store.h"
#include "store/schema_migrations.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

struct ColumnType {
  std::string type;
  bool not_null = false;
  bool primary_key = false;
};

std::map<std::string, ColumnType> table_columns(const std::filesystem::path& file, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::map<std::string, ColumnType> out;
  const std::string sql = "SELECT name, type, \"notnull\", pk FROM pragma_table_info('" + table + "')";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = {
          reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), sqlite3_column_int(st, 2) != 0,
          sqlite3_column_int(st, 3) != 0};
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST(FixitRows, TheMigratedTablesHoldEveryDeclaredColumnAndNothingElse) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  {
    FixitStore store(file);
    ASSERT_TRUE(store.status().ok) << store.status().error;
  }
  std::map<std::string, std::map<std::string, ColumnType>> tables;
  for (const char* t : {"fixit_builds", "fixit_items", "fixit_attempts", "fixit_records"})
    tables[t] = table_columns(file, t);
  for (const auto& f : kFixitFields) {
    if (std::string(f.storage) == "none") continue;
    SCOPED_TRACE(std::string(f.table) + "." + f.column);
    auto& table = tables.at(f.table);
    auto it = table.find(f.column);
    ASSERT_NE(it, table.end()) << "a declared field without its column";
    const std::string declared = column_definition(f.storage);
    EXPECT_EQ(it->second.type, declared.substr(0, declared.find(' ')));
    // fixit_builds.id is `TEXT PRIMARY KEY` (SQLite does not add NOT NULL to it; the store always binds it)
    if (!it->second.primary_key) {
      EXPECT_EQ(it->second.not_null, declared.find("NOT NULL") != std::string::npos);
    }
    EXPECT_LE(f.since, latest_schema_migration());
    table.erase(it);
  }
  for (const auto& [t, columns] : tables)
    for (const auto& [name, type] : columns) ADD_FAILURE() << "column " << name << " of " << t << " is not declared";
}

TEST(FixitRows, EveryTableGivesBackWhatWasStored) {
  test::TempDir dir;
  FixitStore store(dir.path() / "ptxbench.db");
  ASSERT_TRUE(store.status().ok) << store.status().error;
  FixitBuildRow b, got_b;
  b.id = "b1", b.recipe_name = "s1", b.recipe_sha256 = "r", b.recipe_text = "x = 1", b.template_kind = "fixit";
  b.teacher = "files:t", b.config = {{"turns_read", 3}};
  bool created = false;
  ASSERT_TRUE(store.open_build(b, &got_b, &created).ok);
  ASSERT_TRUE(store.get_build("b1", &got_b).ok);
  EXPECT_EQ(got_b.template_kind, "fixit");
  EXPECT_EQ(got_b.config, b.config);
  EXPECT_FALSE(got_b.created_at.empty());

  FixitItemRow i;
  i.build_id = "b1", i.item_key = "k1", i.ordinal = 2, i.problem = "gemm", i.split = "train", i.template_kind = "fixit";
  i.error_class = "compile_error", i.signature = "s", i.status = "pending", i.kernel_hash = "h";
  i.source = {{"run", "r1"}}, i.context = {{"system", "sys"}}, i.error = {{"stage", "build"}};
  ASSERT_TRUE(store.insert_items({i}).ok);
  std::vector<FixitItemRow> items;
  ASSERT_TRUE(store.load_items("b1", &items).ok);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].ordinal, 2);
  EXPECT_EQ(items[0].error, i.error);
  EXPECT_FALSE(items[0].updated_at.empty());

  FixitAttemptRow a;
  a.build_id = "b1", a.item_key = "k1", a.attempt = 0, a.kind = "teacher", a.teacher_index = 0, a.phase = "replied";
  a.model = "m", a.outcome = "ok", a.http_status = 200, a.seconds = 1.5, a.input_tokens = 10, a.cost_usd = 0.5;
  a.request_bytes = "req", a.response_bytes = "resp", a.system_text = "sys", a.content = "fix", a.candidate = "k";
  ASSERT_TRUE(store.insert_attempt(a).ok);
  std::vector<FixitAttemptRow> attempts;
  ASSERT_TRUE(store.load_attempts("b1", "k1", &attempts).ok);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].teacher_index, 0);
  EXPECT_EQ(attempts[0].input_tokens, 10);
  EXPECT_FALSE(attempts[0].output_tokens);
  EXPECT_EQ(attempts[0].cost_usd, 0.5);
  EXPECT_EQ(attempts[0].content, "fix");
  EXPECT_EQ(attempts[0].candidate, "k");
  EXPECT_EQ(attempts[0].request_sha256.size(), 64u);
  EXPECT_TRUE(attempts[0].request_bytes.empty()) << "the bytes stay in their blob";

  ASSERT_TRUE(store.store_record("b1", "k1", json{{"format", "x"}}, "teacher").ok);
  std::vector<FixitRecordRow> records;
  ASSERT_TRUE(store.load_records("b1", &records).ok);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].record, (json{{"format", "x"}}));
  EXPECT_TRUE(records[0].in_dataset);
}

// The library's clean timings in the workspace (store/library_timing_store.h) and the judge's source
// over them (service/library_timing_source.h): rows found by their key, replaced by a new timing of
// the same key, and rows this build cannot trust ignored with the reason, never returned.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "service/library_timing_source.h"
#include "store/library_timing_store.h"
#include "store/workspace_db.h"
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

LibraryTimingScope scope(const std::string& uuid = "GPU-1") {
  return {"gemm",
          {{"workload", "gemm"}, {"options", json::object()}},
          json::object(),
          {{"gpu_uuid", uuid}, {"driver", "580.1"}, {"clocks", {{"power_limit_w", 700}}}}};
}

const json kShape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};

json key(const std::string& uuid = "GPU-1", const std::string& version = "130000") {
  return {{"gpu_uuid", uuid},      {"driver", "580.1"},          {"clocks", {{"power_limit_w", 700}}},
          {"library", "cuBLASLt"}, {"library_version", version}, {"plan", {{"algorithm", "heuristic result 0 of 8"}}}};
}

json measured(double ms) {
  return {{"median_ms", ms}, {"median_error", 0.001}, {"samples", 20}, {"sm_clock_mhz", 1980}};
}

TEST(LibraryTimingStore, ATimingIsFoundByItsKeyAndReplacedByTheNextOfTheSameKey) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  auto source = workspace_library_timings(file);
  std::string error;
  ASSERT_TRUE(source->put(scope(), kShape, key(), measured(1.5), &error)) << error;
  std::vector<json> rows;
  std::vector<std::string> ignored;
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error)) << error;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(ignored.empty());
  EXPECT_DOUBLE_EQ(rows[0]["median_ms"].get<double>(), 1.5);
  for (const char* f : {"gpu_uuid", "driver", "clocks", "library", "library_version", "plan"})
    EXPECT_EQ(rows[0][f], key()[f]) << f;
  // The same key again: replaced, not added.
  ASSERT_TRUE(source->put(scope(), kShape, key(), measured(1.6), &error)) << error;
  rows.clear();
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0]["median_ms"].get<double>(), 1.6);
  // Another library version of the same GPU: a second row (the worker picks the one it runs).
  ASSERT_TRUE(source->put(scope(), kShape, key("GPU-1", "130100"), measured(1.4), &error)) << error;
  rows.clear();
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error));
  EXPECT_EQ(rows.size(), 2u);
  // Another GPU, another shape: nothing.
  rows.clear();
  ASSERT_TRUE(source->find(scope("GPU-2"), kShape, &rows, &ignored, &error));
  EXPECT_TRUE(rows.empty());
  ASSERT_TRUE(source->find(scope(), json{{"M", 128}, {"N", 4096}, {"K", 4096}}, &rows, &ignored, &error));
  EXPECT_TRUE(rows.empty());
  // A value no clean timing has is refused, saying why.
  EXPECT_FALSE(source->put(scope(), kShape, key(), measured(0), &error));
  EXPECT_NE(error.find("no time"), std::string::npos) << error;
}

// The first samples' median a check is compared with travels with the row; a row without one (from
// before migration 6) reads as none; one that is no timing is ignored, saying why.
TEST(LibraryTimingStore, TheFirstSamplesMedianIsKeptWithTheRow) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  auto source = workspace_library_timings(file);
  std::string error;
  json m = measured(4.8);
  m["lead_median_ms"] = 4.6, m["lead_samples"] = 5;
  ASSERT_TRUE(source->put(scope(), kShape, key(), m, &error)) << error;
  ASSERT_TRUE(source->put(scope(), kShape, key("GPU-1", "2"), measured(1.5), &error)) << error;
  std::vector<json> rows;
  std::vector<std::string> ignored;
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error)) << error;
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    const bool lead = r["library_version"] == "130000";
    EXPECT_DOUBLE_EQ(r.value("lead_median_ms", -1.0), lead ? 4.6 : 0.0) << r.dump();
    EXPECT_EQ(r.value("lead_samples", -1), lead ? 5 : 0) << r.dump();
  }
  m["lead_samples"] = 0;  // a median of no samples
  EXPECT_FALSE(source->put(scope(), kShape, key("GPU-1", "3"), m, &error));
  EXPECT_NE(error.find("first samples' median"), std::string::npos) << error;
  exec(file, "UPDATE library_timings SET lead_samples = 99 WHERE library_version = '130000'");  // more than taken
  rows.clear();
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error)) << error;
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("first samples' median"), std::string::npos) << ignored[0];
}

TEST(LibraryTimingStore, ACorruptOrOldFormatRowIsIgnoredWithItsReason) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  auto source = workspace_library_timings(file);
  std::string error;
  ASSERT_TRUE(source->put(scope(), kShape, key(), measured(1.5), &error)) << error;
  ASSERT_TRUE(source->put(scope(), kShape, key("GPU-1", "2"), measured(1.5), &error)) << error;
  ASSERT_TRUE(source->put(scope(), kShape, key("GPU-1", "3"), measured(1.5), &error)) << error;
  exec(file, "UPDATE library_timings SET format = 0 WHERE library_version = '130000'");
  exec(file, "UPDATE library_timings SET median_ms = -1 WHERE library_version = '2'");
  std::vector<json> rows;
  std::vector<std::string> ignored;
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error)) << error;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["library_version"], "3");
  ASSERT_EQ(ignored.size(), 2u);
  const std::string all = ignored[0] + " | " + ignored[1];
  EXPECT_NE(all.find("row format 0, this build reads format 1"), std::string::npos) << all;
  EXPECT_NE(all.find("is no time"), std::string::npos) << all;
  exec(file, "UPDATE library_timings SET plan = '{not json' WHERE library_version = '3'");
  rows.clear();
  ASSERT_TRUE(source->find(scope(), kShape, &rows, &ignored, &error)) << error;
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(ignored.size(), 3u);
}

TEST(LibraryTimingStore, AWorkspaceWithoutTheTableGetsItByItsMigration) {
  test::TempDir dir;
  const auto file = dir.path() / "ptxbench.db";
  {
    WorkspaceDb db(file);
    ASSERT_TRUE(db.status().ok) << db.status().error;
  }  // an eval-only workspace
  LibraryTimingStore store(file);
  ASSERT_TRUE(store.status().ok) << store.status().error;
  LibraryTimingLookup found;
  EXPECT_TRUE(store.find({"GPU-1", "580.1", "{}", "gemm", "{}", "{}", "{}"}, &found).ok);
  EXPECT_TRUE(found.rows.empty());
}

}  // namespace

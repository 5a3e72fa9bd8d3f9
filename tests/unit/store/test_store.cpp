#include <gtest/gtest.h>
#include <unistd.h>

#include "store/workspace_db.h"

using namespace ptxbench;

static EvaluationRecord record(const std::string& problem, Verdict v) {
  EvaluationRecord r;
  r.problem = problem;
  r.arch = "sm_90a";
  r.candidate_path = problem + ".cu";
  r.candidate_sha256 = std::string(64, 'b');
  r.created_at = "2026-11-29T12:00:00Z";
  r.verdict = v;
  r.add_stage({"build", StageStatus::ok, 1, "built", {{"command", "nvcc"}}});
  if (v == Verdict::correct) r.speedup_geomean = 0.75;
  return r;
}

TEST(WorkspaceDb, InsertGetAndListRoundTrip) {
  auto path = std::filesystem::temp_directory_path() / ("ptxbench-db-" + std::to_string(getpid())) / "w.db";
  std::filesystem::remove_all(path.parent_path());
  long long a = 0, b = 0;
  {
    WorkspaceDb db(path);
    ASSERT_TRUE(db.status().ok) << db.status().error;
    ASSERT_TRUE(db.insert(record("gemm", Verdict::correct), &a).ok);
    ASSERT_TRUE(db.insert(record("mha_fwd", Verdict::incorrect), &b).ok);
  }
  WorkspaceDb db(path);  // reopened: the data persisted
  StoredRecord got;
  ASSERT_TRUE(db.get(a, &got).ok);
  EXPECT_EQ(to_json(got.record), to_json(record("gemm", Verdict::correct)));
  std::vector<StoredRecord> rows;
  ASSERT_TRUE(db.list("", 10, &rows).ok);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, b);  // most recent first
  rows.clear();
  ASSERT_TRUE(db.list("gemm", 10, &rows).ok);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].record.verdict, Verdict::correct);
  auto missing = db.get(12345, &got);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("12345"), std::string::npos);
  std::filesystem::remove_all(path.parent_path());
}

TEST(WorkspaceDb, UnopenablePathIsAStatusNotACrash) {
  WorkspaceDb db("/proc/definitely/not/writable/w.db");
  EXPECT_FALSE(db.status().ok);
  EXPECT_FALSE(db.insert(record("gemm", Verdict::correct)).ok);
}

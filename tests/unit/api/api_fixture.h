// A reward API over a SQLite queue in a fresh folder, the problems of the source tree, and records
// a test stores as if the engine had judged them.
#pragma once
#include <gtest/gtest.h>

#include "api/reward_api.h"
#include "core/record.h"
#include "service/queue/sqlite_job_queue.h"
#include "support/temp_dir.h"

namespace ptxbench::api::test {

inline ServerFacts test_facts() { return {"sm_90a", "cuda", {"gemm", "mha_fwd"}}; }

inline json candidate(const std::string& key, const std::string& source = "__global__ void k() {}") {
  return {{"key", key}, {"problem", "gemm"}, {"source", source}};
}

// Correct, timed on two shapes, the target instructions doing the work.
inline EvaluationRecord correct_record() {
  EvaluationRecord r;
  r.problem = "gemm", r.arch = "sm_90a", r.verdict = Verdict::correct, r.reason = "all outputs match";
  r.add_stage({"build", StageStatus::ok, 1.5, "", json::object()});
  r.add_stage({"correctness", StageStatus::ok, 0.25, "", json::object()});
  r.target_executed = true, r.target_seen = true, r.target_static = true;
  r.tensor_flop_share = 0.98, r.tma_byte_share = 0.9;
  ShapeTiming a;
  a.shape = {{"M", 1024}}, a.speedup = 2.0, a.median_ms = 1, a.baseline_median_ms = 2;
  ShapeTiming b;
  b.shape = {{"M", 4096}}, b.speedup = 0.5, b.median_ms = 4, b.baseline_median_ms = 2;
  r.timing = {a, b};
  r.speedup_geomean = 1.0;
  return r;
}

struct ApiFixture : ::testing::Test {
  ptxbench::test::TempDir dir{"ptxbench-api"};
  SqliteJobQueue queue{dir.path() / "ptxbench.db"};
  RewardApiOptions options() const {
    RewardApiOptions o;
    o.admission.max_queue_depth = 3;
    o.admission.retry_after_seconds = 4;
    o.max_wait_seconds = 5;
    return o;
  }
  int notified = 0;
  RewardApi api{queue, test_facts(), std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems", options(),
                [this] { ++notified; }};

  // Leases the job of `key` and stores `record` as its result, as the engine does.
  void judge(const std::string& key, const EvaluationRecord& record) {
    std::optional<LeasedJob> job;
    ASSERT_TRUE(queue.lease("test-lane", std::chrono::seconds(60), &job).ok);
    ASSERT_TRUE(job);
    ASSERT_EQ(job->id, job_id_for_key(key));
    bool stored = false;
    ASSERT_TRUE(queue
                    .complete(job->id, "test-lane",
                              {{"record", to_json(record)},
                               {"timings", {{"prepare_seconds", 1.5}, {"gpu_seconds", 3.0}}},
                               {"device", 0}},
                              &stored)
                    .ok);
    ASSERT_TRUE(stored);
    api.job_finished(job->id);
  }
};

}  // namespace ptxbench::api::test

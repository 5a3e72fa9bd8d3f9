// The reward API's logic over a real SQLite queue: durable submissions, idempotent keys (409 for a
// key reused with another candidate, nothing of that request queued), back-pressure, draining,
// status with long-poll, results with the flat reward view, infra_error results.
#include <gtest/gtest.h>

#include <thread>

#include "api/reward_view.h"
#include "api_fixture.h"

using namespace ptxbench;
using namespace ptxbench::api;
using namespace ptxbench::api::test;

TEST_F(ApiFixture, ASubmissionIsQueuedOnceUnderItsKey) {
  ApiResponse first = api.submit(candidate("k1").dump());
  ASSERT_EQ(first.status, 202) << first.body.dump();
  EXPECT_FALSE(first.body["submissions"][0]["duplicate"].get<bool>());
  EXPECT_EQ(notified, 1);
  ApiResponse again = api.submit(candidate("k1").dump());
  ASSERT_EQ(again.status, 202) << again.body.dump();
  EXPECT_TRUE(again.body["submissions"][0]["duplicate"].get<bool>());
  EXPECT_EQ(notified, 1) << "a retry queues nothing";
  QueueCounts c;
  ASSERT_TRUE(queue.counts(&c).ok);
  EXPECT_EQ(c.queued, 1);
  std::optional<json> payload;
  ASSERT_TRUE(queue.payload("api/k1", &payload).ok);
  ASSERT_TRUE(payload);
  EXPECT_EQ(payload->at("problem"), "gemm");
  EXPECT_EQ(payload->at("source"), "__global__ void k() {}");
}

TEST_F(ApiFixture, AKeyReusedForAnotherCandidateIsAConflictAndTheRequestQueuesNothing) {
  ASSERT_EQ(api.submit(candidate("k1").dump()).status, 202);
  ApiResponse r = api.submit(json{{"candidates", {candidate("k2"), candidate("k1", "changed")}}}.dump());
  EXPECT_EQ(r.status, 409) << r.body.dump();
  EXPECT_EQ(r.body["error"]["errors"][0]["where"], "candidates[1].key");
  QueueCounts c;
  ASSERT_TRUE(queue.counts(&c).ok);
  EXPECT_EQ(c.queued, 1) << "k2 was not queued";
}

TEST_F(ApiFixture, AnInvalidSubmissionIs400WithWhereAndWhat) {
  ApiResponse r = api.submit(json{{"key", "k"}, {"problem", "nope"}, {"source", "x"}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["error"]["errors"][0]["where"], "problem");
  EXPECT_NE(r.body["error"]["errors"][0]["what"].get<std::string>().find("unknown problem"), std::string::npos);
}

TEST_F(ApiFixture, AFullQueueIs429WithRetryAfterAndRetriesOfKnownKeysStillPass) {
  ASSERT_EQ(api.submit(json{{"candidates", {candidate("a"), candidate("b")}}}.dump()).status, 202);
  ApiResponse over = api.submit(json{{"candidates", {candidate("c"), candidate("d")}}}.dump());
  EXPECT_EQ(over.status, 429) << over.body.dump();
  EXPECT_EQ(over.retry_after_seconds, 4);
  EXPECT_EQ(api.submit(candidate("c").dump()).status, 202);  // exactly at the limit
  EXPECT_EQ(api.submit(candidate("d").dump()).status, 429);  // past it
  EXPECT_EQ(api.submit(candidate("a").dump()).status, 202) << "a retry adds nothing";
}

TEST_F(ApiFixture, DrainingRefusesSubmissionsWith503ButAnswersStatus) {
  ASSERT_EQ(api.submit(candidate("a").dump()).status, 202);
  api.set_draining(true);
  ApiResponse r = api.submit(candidate("b").dump());
  EXPECT_EQ(r.status, 503);
  EXPECT_GT(r.retry_after_seconds, 0);
  EXPECT_EQ(api.status("a", 0).status, 200);
  EXPECT_EQ(api.health().status, 503);
  EXPECT_EQ(api.health().body["status"], "draining");
}

TEST_F(ApiFixture, StatusIs404ForAnUnknownKeyAndSaysQueuedOtherwise) {
  EXPECT_EQ(api.status("nobody", 0).status, 404);
  EXPECT_EQ(api.status("bad/key", 0).status, 400);
  ASSERT_EQ(api.submit(candidate("a").dump()).status, 202);
  ApiResponse s = api.status("a", 0);
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.body["state"], "queued");
  EXPECT_FALSE(s.body["finished"].get<bool>());
  ApiResponse early = api.result("a");
  EXPECT_EQ(early.status, 202);
  EXPECT_EQ(early.retry_after_seconds, 1);
}

TEST_F(ApiFixture, ALongPollAnswersWhenTheJobEndsNotAfterItsWait) {
  ASSERT_EQ(api.submit(candidate("a").dump()).status, 202);
  std::thread judge_later([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    judge("a", correct_record());
  });
  const auto t0 = std::chrono::steady_clock::now();
  ApiResponse s = api.status("a", 5);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  judge_later.join();
  EXPECT_EQ(s.body["state"], "done") << s.body.dump();
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 3.0);
  // A long-poll of a job that does not end returns after its wait with the state as it is.
  ASSERT_EQ(api.submit(candidate("b").dump()).status, 202);
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(api.status("b", 0.5).body["state"], "queued");
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), 0.45);
}

TEST_F(ApiFixture, AResultCarriesTheRecordTheRewardViewAndTheClientsMetadata) {
  json c = candidate("a");
  c["metadata"] = {{"step", 7}};
  ASSERT_EQ(api.submit(c.dump()).status, 202);
  judge("a", correct_record());
  ApiResponse r = api.result("a");
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["state"], "done");
  EXPECT_EQ(r.body["metadata"]["step"], 7);
  EXPECT_EQ(r.body["record"]["verdict"], "correct");
  const json& w = r.body["reward"];
  EXPECT_TRUE(w["compiled"].get<bool>());
  EXPECT_TRUE(w["correct"].get<bool>());
  EXPECT_TRUE(w["counts"].get<bool>());
  EXPECT_DOUBLE_EQ(w["speedup_geomean"].get<double>(), 1.0);
  ASSERT_EQ(w["speedups"].size(), 2u);
  EXPECT_DOUBLE_EQ(w["speedups"][1]["speedup"].get<double>(), 0.5);
  EXPECT_TRUE(w["target_executed"].get<bool>());
  EXPECT_DOUBLE_EQ(w["tensor_flop_share"].get<double>(), 0.98);
  EXPECT_DOUBLE_EQ(w["service_seconds"]["gpu_seconds"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(w["stage_seconds"]["build"].get<double>(), 1.5);
  EXPECT_TRUE(w["error_class"].is_null()) << "a target-correct candidate is no failure";
  EXPECT_FALSE(w["feedback"].get<std::string>().empty());
}

TEST_F(ApiFixture, AJobTheHarnessFailedEveryTimeReadsAsInfraErrorThatDoesNotCount) {
  ASSERT_EQ(api.submit(candidate("a").dump()).status, 202);
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::optional<LeasedJob> job;
    ASSERT_TRUE(queue.lease("lane", std::chrono::seconds(60), &job).ok);
    ASSERT_TRUE(job);
    bool requeued = false;
    ASSERT_TRUE(queue.fail(job->id, "lane", "GPU fell off the bus", &requeued).ok);
  }
  ApiResponse r = api.result("a");
  ASSERT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(r.body["state"], "infra_error");
  EXPECT_EQ(r.body["reward"]["verdict"], "infra_error");
  EXPECT_FALSE(r.body["reward"]["counts"].get<bool>());
  EXPECT_NE(r.body["reward"]["reason"].get<std::string>().find("GPU fell off the bus"), std::string::npos);
}

TEST(RewardView, AFailedBuildIsNotCompiledWithItsErrorClass) {
  EvaluationRecord r;
  r.problem = "gemm", r.verdict = Verdict::compile_error, r.reason = "nvcc failed";
  r.add_stage({"build",
               StageStatus::failed,
               0.5,
               "nvcc failed",
               {{"diagnostics", {{{"severity", "error"}, {"message", "identifier \"foo\" is undefined"}}}}}});
  json w = reward_view(r, nullptr, nullptr);
  EXPECT_FALSE(w["compiled"].get<bool>());
  EXPECT_FALSE(w["correct"].get<bool>());
  EXPECT_TRUE(w["counts"].get<bool>());
  EXPECT_TRUE(w["speedup_geomean"].is_null());
  EXPECT_TRUE(w["target_executed"].is_null());
  EXPECT_EQ(w["error_class"], "compile_error");
  EXPECT_EQ(w["error_signature"].get<std::string>().rfind("compile_error", 0), 0u) << w.dump();
}

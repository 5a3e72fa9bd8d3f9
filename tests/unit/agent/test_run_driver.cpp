// The MiniPTXAgent loop with a scripted model and a fake candidate service (no nvcc, no GPU):
// turns, context, retries, stops, resume, reuse of identical candidates, pipelining.
#include <gtest/gtest.h>

#include <sstream>

#include "agent/rescorer.h"
#include "agent/run_driver.h"
#include "agent/run_identity.h"
#include "core/error.h"
#include "problems/registry.h"
#include "support/fake_candidate_service.h"
#include "support/scripted_client.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;
using ptxbench::ChatReply;
using ptxbench::ChatRequest;
using ptxbench::ProviderOutcome;

namespace {

std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }

// A candidate that names the entry point; its verdict (in the fake service) is in a comment.
std::string kernel(const std::string& verdict, int traj, int turn, const std::string& extra = "") {
  return "// verdict: " + verdict + "\n// speedup: 0." + std::to_string(5 + turn) + "\n// t" + std::to_string(traj) +
         "." + std::to_string(turn) + "\n" + extra +
         "extern \"C\" cudaError_t ptxbench_gemm(const void* A) { return cudaSuccess; }\n";
}

class Agent : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<RunStore>(dir_.path() / "ptxbench.db");
    ASSERT_TRUE(store_->status().ok);
    gemm_ = ProblemRegistry(repo() / "problems").load("gemm");
  }
  RunConfig config(int trajectories, int turns) {
    RunConfig c;
    c.model = "scripted:test";
    c.problems = {"gemm"};
    c.trajectories = trajectories;
    c.turns = turns;
    c.infra_retry_delay_s = 0;
    return c;
  }
  RunOutcome run(const RunConfig& c, ModelClient& client, CandidateService& service,
                 const fixit::RepairNotes* notes = nullptr) {
    RunDriverOptions o;
    o.notes = notes;
    o.knowledge_root = repo() / "knowledge";
    o.workspace = dir_.path();
    o.progress_stream = &progress_;
    return RunDriver(c, {gemm_}, client, service, *store_, o).run();
  }
  std::vector<TurnRow> turns(const std::string& run_id) {
    std::vector<TurnRow> t;
    EXPECT_TRUE(store_->load_turns(run_id, &t).ok);
    return t;
  }
  int calls(const std::string& run_id, int traj, int turn) {
    int n = 0;
    EXPECT_TRUE(store_->count_model_calls(run_id, "gemm", traj, turn, &n).ok);
    return n;
  }

  test::TempDir dir_;
  std::unique_ptr<RunStore> store_;
  ProblemSpec gemm_;
  std::ostringstream progress_;
};

}  // namespace

TEST_F(Agent, RunsEveryTurnOfEveryTrajectoryAndRecordsIt) {
  test::ScriptedClient client(
      [](const ChatRequest& r) {
        return test::cuda_reply(kernel(r.at.turn == 0 ? "compile_error" : "correct", r.at.trajectory, r.at.turn));
      },
      30ms);
  test::FakeCandidateService service(20ms);
  RunConfig c = config(3, 3);
  c.prices["scripted:test"] = {1.0, 2.0};
  const RunOutcome out = run(c, client, service);
  EXPECT_EQ(out.status, "complete") << out.stop_reason;
  EXPECT_TRUE(out.created);
  const auto t = turns(out.run.id);
  ASSERT_EQ(t.size(), 9u);
  for (const auto& row : t) {
    EXPECT_EQ(row.phase, "done");
    EXPECT_EQ(row.state, row.turn == 0 ? "compile_error" : "correct");
    EXPECT_EQ(row.target_correct, row.turn != 0) << "correct with targets executed";
    EXPECT_EQ(row.feedback_version, "feedback/1");
    EXPECT_NE(row.feedback.find("## Result of turn " + std::to_string(row.turn + 1) + " of 3"), std::string::npos);
    EXPECT_EQ(row.input_tokens, 1000);
    EXPECT_EQ(row.reasoning_tokens, 50);
    EXPECT_EQ(row.cached_input_tokens, 400);  // the provider's count, stored with the turn
    EXPECT_EQ(row.reasoning_chars, static_cast<long long>(std::string("thinking about tiles").size()));
    EXPECT_NEAR(*row.cost_usd, (1000 * 1.0 + 200 * 2.0) / 1e6, 1e-12);
    EXPECT_GT(row.model_seconds, 0.02);
    EXPECT_TRUE(row.evaluation_id.has_value());
    EXPECT_EQ(calls(out.run.id, row.trajectory, row.turn), 1) << "no turn called twice";
  }
  EXPECT_EQ(client.requests().size(), 9u);
  EXPECT_GE(client.max_in_flight(), 2) << "trajectories are in flight together";
  RunInfo run;
  ASSERT_TRUE(store_->get_run(out.run.id, &run).ok);
  EXPECT_EQ(run.status, "complete");
  EXPECT_EQ(run.provenance["gpu"]["name"], "Fake GPU");
  EXPECT_TRUE(run.provenance["harness"].contains("commit"));
  EXPECT_EQ(run.config["trajectories"], 3);
}

TEST_F(Agent, ContextKeepsTheLastKTurnsAndTheFeedbackSent) {
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("incorrect", r.at.trajectory, r.at.turn)); });
  test::FakeCandidateService service;
  RunConfig c = config(1, 4);
  c.context_turns = 1;
  const RunOutcome out = run(c, client, service);
  ASSERT_EQ(out.status, "complete");
  auto reqs = client.requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[0].messages.size(), 1u);
  ASSERT_EQ(reqs[3].messages.size(), 3u) << "problem (+ one-liners), then turn 2 in full";
  EXPECT_NE(reqs[3].messages[0].content.find("- turn 1: incorrect"), std::string::npos);
  EXPECT_NE(reqs[3].messages[0].content.find("- turn 2: incorrect"), std::string::npos);
  const auto t = turns(out.run.id);
  EXPECT_EQ(reqs[3].messages[2].content, t[2].feedback) << "the exact feedback text is what the model got";
  EXPECT_EQ(t[3].context["one_line"], json({0, 1}));
  EXPECT_EQ(t[3].context["full"], json({2}));
  EXPECT_NE(reqs[0].system.find("Architecture knowledge"), std::string::npos);
  EXPECT_NE(reqs[0].messages[0].content.find("ptxbench_gemm("), std::string::npos);
}

TEST_F(Agent, RepairNotesFollowAFailingTurnsFeedbackAndTheTurnRecordsWhichWereShown) {
  auto record = [](const std::string& id, const std::string& problem, const std::string& why) {
    return json{
        {"format", "ptxbench.fixit/1"},
        {"id", id},
        {"template", "fixit"},
        {"problem", problem},
        {"split", "train"},
        {"error", {{"class", "incorrect"}, {"signature", "incorrect/unknown/unknown/mismatch/listed"}}},
        {"context",
         {{"system", ""}, {"problem_prompt", "P"}, {"failed_reply", "R"}, {"feedback", "F"}, {"failing_kernel", "k"}}},
        {"target", {{"explanation", why}, {"kernel", "FIXED " + id + "\n"}, {"message", why}}}};
  };
  fixit::RepairNotes notes({record("b/1", "mha_fwd", "The tile index used the wrong stride."),
                            record("b/2", "gemm", "A note of the problem itself.")},
                           "test");
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("incorrect", r.at.trajectory, r.at.turn)); });
  test::FakeCandidateService service;
  RunConfig c = config(1, 2);
  c.repair_notes.source = "test";
  c.repair_notes.sha256 = notes.sha256();
  c.repair_notes.k = 2;
  c.repair_notes.with_fixed_kernel = true;
  const RunOutcome out = run(c, client, service, &notes);
  ASSERT_EQ(out.status, "complete");
  const auto t = turns(out.run.id);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NE(t[0].feedback.find("## Repair notes from similar failures (1)"), std::string::npos) << t[0].feedback;
  EXPECT_NE(t[0].feedback.find("The tile index used the wrong stride."), std::string::npos);
  EXPECT_NE(t[0].feedback.find("FIXED b/1"), std::string::npos);
  EXPECT_EQ(t[0].feedback.find("A note of the problem itself."), std::string::npos)
      << "notes of gemm itself are left out";
  const json& shown = t[0].context["repair_notes"];
  ASSERT_EQ(shown["shown"].size(), 1u) << shown.dump();
  EXPECT_EQ(shown["shown"][0]["id"], "b/1");
  EXPECT_EQ(shown["excluded"]["same_problem"], 1);
  EXPECT_EQ(shown["with_fixed_kernel"], true);
  // The model's next request carries them.
  EXPECT_NE(client.requests()[1].messages.back().content.find("The tile index used the wrong stride."),
            std::string::npos);
  // The notes are part of the run's identity: the same settings without notes are another run.
  RunConfig plain = config(1, 2);
  EXPECT_NE(run_id_for(plain), out.run.id);
  RunConfig other = c;
  other.repair_notes.with_fixed_kernel = false;
  EXPECT_NE(run_id_for(other), out.run.id);
}

TEST_F(Agent, ProviderStatesAndNoCodeAreCountedTurnsWithTheirOwnState) {
  test::ScriptedClient client([](const ChatRequest& r) {
    ChatReply reply = test::cuda_reply(kernel("not_run", r.at.trajectory, r.at.turn));
    if (r.at.turn == 0) reply.outcome = ProviderOutcome::refused, reply.content.clear(), reply.error = "content filter";
    if (r.at.turn == 1) reply.content = "I would use wgmma here.";
    if (r.at.turn == 2)
      reply.outcome = ProviderOutcome::truncated, reply.content = "```cuda\n" + kernel("incorrect", 0, 2);
    if (r.at.turn == 3) reply.outcome = ProviderOutcome::reasoning_only, reply.content.clear();
    return reply;
  });
  test::FakeCandidateService service;
  const RunOutcome out = run(config(1, 4), client, service);
  ASSERT_EQ(out.status, "complete");
  const auto t = turns(out.run.id);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].state, "refused");
  EXPECT_NE(t[0].feedback.find("content filter"), std::string::npos);
  EXPECT_EQ(t[1].state, "no_code");
  EXPECT_EQ(t[1].provider_outcome, "ok");
  EXPECT_EQ(t[2].state, "incorrect") << "a truncated reply's code is still judged";
  EXPECT_EQ(t[2].provider_outcome, "truncated");
  EXPECT_EQ(t[2].extraction["unterminated"], true);
  EXPECT_EQ(t[3].state, "reasoning_only");
  EXPECT_EQ(service.submits(), 1);
}

TEST_F(Agent, InfraErrorsAreRetriedAndNeverCounted) {
  std::atomic<int> seen{0};
  test::ScriptedClient client([&](const ChatRequest& r) {
    if (r.at.turn == 1 && seen++ < 2) {
      ChatReply bad;
      bad.outcome = ProviderOutcome::infra_error;
      bad.error = "connection reset";
      return bad;
    }
    return test::cuda_reply(kernel("not_run", r.at.trajectory, r.at.turn));
  });
  test::FakeCandidateService service;
  RunConfig c = config(1, 2);
  c.max_infra_errors = 5;
  const RunOutcome out = run(c, client, service);
  ASSERT_EQ(out.status, "complete") << out.stop_reason;
  EXPECT_EQ(turns(out.run.id).size(), 2u);
  EXPECT_EQ(calls(out.run.id, 0, 1), 3) << "two infra attempts are stored too";
  EXPECT_NE(progress_.str().find("infrastructure error 1/5 (model call for gemm/0/1: connection reset)"),
            std::string::npos)
      << progress_.str();
}

TEST_F(Agent, InfraBudgetStopsTheRunAndTheSameCommandResumesIt) {
  std::atomic<bool> network_down{true};
  test::ScriptedClient client([&](const ChatRequest& r) {
    if (r.at.trajectory == 1 && r.at.turn == 1 && network_down) {
      ChatReply bad;
      bad.outcome = ProviderOutcome::infra_error;
      bad.error = "timeout";
      return bad;
    }
    return test::cuda_reply(kernel("not_run", r.at.trajectory, r.at.turn));
  });
  test::FakeCandidateService service;
  RunConfig c = config(2, 3);
  c.max_infra_errors = 2;
  c.parallel = 1;
  const RunOutcome first = run(c, client, service);
  EXPECT_EQ(first.status, "stopped");
  EXPECT_EQ(first.stop_kind, "infra_errors");
  EXPECT_NE(first.stop_reason.find("exceed --max-infra-errors 2"), std::string::npos) << first.stop_reason;
  const size_t stored = turns(first.run.id).size();
  EXPECT_EQ(stored, 4u) << "trajectory 0 whole, trajectory 1 up to the failing turn";
  network_down = false;
  const RunOutcome second = run(c, client, service);
  EXPECT_EQ(second.status, "complete");
  EXPECT_FALSE(second.created);
  const auto t = turns(second.run.id);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(second.new_turns, 2);
}

TEST_F(Agent, QuotaStopsCleanlyAndResumes) {
  std::atomic<bool> quota{true};
  test::ScriptedClient client([&](const ChatRequest& r) {
    if (r.at.turn == 1 && quota) {
      ChatReply q;
      q.outcome = ProviderOutcome::quota_exhausted;
      q.error = "insufficient_quota";
      return q;
    }
    return test::cuda_reply(kernel("not_run", r.at.trajectory, r.at.turn));
  });
  test::FakeCandidateService service;
  RunConfig c = config(1, 2);
  const RunOutcome first = run(c, client, service);
  EXPECT_EQ(first.status, "stopped");
  EXPECT_EQ(first.stop_kind, "quota");
  EXPECT_NE(first.stop_reason.find("insufficient_quota"), std::string::npos);
  EXPECT_EQ(turns(first.run.id).size(), 1u);
  quota = false;
  const RunOutcome second = run(c, client, service);
  EXPECT_EQ(second.status, "complete");
  EXPECT_EQ(turns(second.run.id).size(), 2u);
  EXPECT_EQ(calls(second.run.id, 0, 1), 2) << "the quota call is kept, uncounted";
}

TEST_F(Agent, IdenticalCandidatesAreJudgedOnceUnlessRejudge) {
  auto same = [](const ChatRequest&) { return test::cuda_reply(kernel("incorrect", 0, 0)); };
  {
    test::ScriptedClient client(same);
    test::FakeCandidateService service(10ms);
    const RunOutcome out = run(config(3, 2), client, service);
    ASSERT_EQ(out.status, "complete");
    EXPECT_EQ(service.submits(), 1);
    int reused = 0;
    std::set<long long> evaluations;
    for (const auto& t : turns(out.run.id)) {
      reused += t.reused_evaluation;
      evaluations.insert(*t.evaluation_id);
      EXPECT_EQ(t.state, "incorrect");
    }
    EXPECT_EQ(reused, 5);
    EXPECT_EQ(evaluations.size(), 1u);
  }
  test::ScriptedClient client(same);
  test::FakeCandidateService service;
  RunConfig c = config(3, 2);
  c.rejudge = true;
  c.run_name = "rejudge";
  ASSERT_EQ(run(c, client, service).status, "complete");
  EXPECT_EQ(service.submits(), 6);
}

TEST_F(Agent, StoredReplyIsJudgedOnResumeWithoutCallingTheModel) {
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("incorrect", r.at.trajectory, r.at.turn)); });
  test::FakeCandidateService service;
  RunConfig c = config(1, 2);
  c.limit = 1;
  const RunOutcome first = run(c, client, service);
  ASSERT_EQ(first.stop_kind, "limit");
  // As if killed after the reply of turn 1 was stored but before it was judged:
  ModelCallRow call;
  call.run_id = first.run.id;
  call.problem = "gemm";
  call.turn = 1;
  call.outcome = "ok";
  call.content = "```cuda\n" + kernel("correct", 0, 1) + "```\n";
  TurnRow pending;
  pending.run_id = first.run.id;
  pending.problem = "gemm";
  pending.turn = 1;
  pending.phase = "judging";
  pending.state = "pending";
  pending.provider_outcome = "ok";
  const std::string source = kernel("correct", 0, 1);
  ASSERT_TRUE(store_->store_reply(call, pending, &source).ok);
  c.limit.reset();
  const RunOutcome second = run(c, client, service);
  EXPECT_EQ(second.status, "complete");
  EXPECT_EQ(client.requests().size(), 1u) << "the model was not asked again for turn 1";
  const auto t = turns(second.run.id);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].phase, "done");
  EXPECT_EQ(t[1].state, "correct");
  EXPECT_EQ(second.new_turns, 0);
}

TEST_F(Agent, LimitStopsAfterNNewTurns) {
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("not_run", r.at.trajectory, r.at.turn)); });
  test::FakeCandidateService service;
  RunConfig c = config(2, 2);
  c.limit = 3;
  const RunOutcome first = run(c, client, service);
  EXPECT_EQ(first.stop_kind, "limit");
  EXPECT_EQ(first.new_turns, 3);
  EXPECT_EQ(turns(first.run.id).size(), 3u);
  c.limit.reset();
  EXPECT_EQ(run(c, client, service).status, "complete");
  EXPECT_EQ(turns(first.run.id).size(), 4u);
}

TEST_F(Agent, AClientThatThrowsStopsTheRunSayingWhy) {
  test::ScriptedClient client([](const ChatRequest& r) -> ChatReply {
    if (r.at.turn == 1) throw InputError("replay: no recorded turn gemm/0/1");
    return test::cuda_reply(kernel("not_run", 0, 0));
  });
  test::FakeCandidateService service;
  const RunOutcome out = run(config(1, 3), client, service);
  EXPECT_EQ(out.status, "stopped");
  EXPECT_EQ(out.stop_kind, "client_error");
  EXPECT_NE(out.stop_reason.find("no recorded turn gemm/0/1"), std::string::npos) << out.stop_reason;
  EXPECT_EQ(turns(out.run.id).size(), 1u);
  EXPECT_EQ(calls(out.run.id, 0, 1), 1) << "the failed call is recorded";
}

TEST_F(Agent, HarnessFaultsWhileJudgingAreRetriedAsInfraErrors) {
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("incorrect", 0, r.at.turn, "// infra-once\n")); });
  test::FakeCandidateService service;
  const RunOutcome out = run(config(1, 1), client, service);
  ASSERT_EQ(out.status, "complete") << out.stop_reason;
  EXPECT_EQ(service.submits(), 2);
  EXPECT_EQ(turns(out.run.id)[0].state, "incorrect");
  std::vector<StoredRecord> all;
  ASSERT_TRUE(store_->evaluations().list("", 10, &all).ok);
  EXPECT_EQ(all.size(), 2u) << "the infra_error evaluation is kept";

  test::ScriptedClient thrower(
      [](const ChatRequest&) { return test::cuda_reply(kernel("incorrect", 0, 0, "// throw\n")); });
  RunConfig c = config(1, 1);
  c.run_name = "faulty";
  c.max_infra_errors = 1;
  const RunOutcome bad = run(c, thrower, service);
  EXPECT_EQ(bad.stop_kind, "infra_errors");
  const auto t = turns("faulty");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].phase, "judging") << "the reply is kept, to be judged on resume";
}

TEST_F(Agent, SameNameWithOtherSettingsIsRefused) {
  test::ScriptedClient client([](const ChatRequest& r) { return test::cuda_reply(kernel("not_run", 0, r.at.turn)); });
  test::FakeCandidateService service;
  RunConfig c = config(1, 1);
  c.run_name = "x";
  ASSERT_EQ(run(c, client, service).status, "complete");
  c.knowledge = "none";
  EXPECT_THROW(run(c, client, service), InputError);
}

TEST_F(Agent, RescoreJudgesEachDistinctCandidateOnceAndKeepsTheFeedback) {
  test::ScriptedClient client(
      [](const ChatRequest& r) { return test::cuda_reply(kernel("not_run", 0, r.at.turn % 2)); });
  test::FakeCandidateService cpu;
  const RunOutcome out = run(config(2, 3), client, cpu);
  ASSERT_EQ(out.status, "complete");
  const auto before = turns(out.run.id);
  // "On the GPU host": the same sources now judge correct.
  class Regrade : public test::FakeCandidateService {
   public:
    CandidateTicket submit(CandidateJob job) override {
      std::string s = job.source;
      s.replace(s.find("verdict: not_run"), 16, "verdict: correct");
      job.source = s;
      return FakeCandidateService::submit(job);
    }
  } gpu;
  std::ostringstream sink;
  RunProgress progress("rescore", 0, 6, sink, false, {});
  const RescoreOutcome r = rescore_run(*store_, out.run.id, {gemm_}, gpu, progress);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.candidates, 2) << "two distinct candidates over six turns";
  EXPECT_EQ(gpu.submits(), 2);
  EXPECT_EQ(r.turns, 6);
  EXPECT_EQ(r.changed.at("not_run -> correct"), 6);
  const auto after = turns(out.run.id);
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].state, "correct");
    EXPECT_EQ(after[i].feedback, before[i].feedback) << "what the model saw is kept";
    EXPECT_NE(after[i].evaluation_id, before[i].evaluation_id);
  }
}

// fixit build end to end in process: real store, the fake candidate service (verdicts from the
// kernels' comments) and a scripted teacher. Counts are computed by hand for each scenario.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "fixit/builder.h"
#include "fixit_fixtures.h"
#include "problems/registry.h"
#include "report/fixit_tables.h"
#include "support/fake_candidate_service.h"
#include "support/scripted_client.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::fixit;
using ptxbench::ChatReply;
using ptxbench::ChatRequest;
using ptxbench::ProviderOutcome;
using test::turn;

namespace {

std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }

// The fake service reads the verdict from the comment; the tag is code too, since de-duplication
// compares kernels without their comments.
std::string kernel(const std::string& verdict, const std::string& tag, const std::string& extra = "") {
  return "// verdict: " + verdict + "\n// " + tag + "\n" + extra + "constexpr const char* kTag = \"" + tag + "\";\n" +
         "extern \"C\" cudaError_t ptxbench_mha_fwd(const void* q) { return cudaSuccess; }\n";
}

const std::string kLongProse =
    "The kernel indexed the key tile with the query's row stride, so every block read past its tile; the fix uses the "
    "key "
    "stride and waits on the barrier before the wgmma reads shared memory.";

ChatReply answer(const std::string& content, ProviderOutcome o = ProviderOutcome::ok) {
  ChatReply r;
  r.outcome = o;
  r.content = content;
  r.finish_reason = "stop";
  r.model = "teacher-model";
  r.usage.input_tokens = 1000;
  r.usage.output_tokens = 200;
  if (o == ProviderOutcome::infra_error) r.error = "timed out after 3 attempts";
  return r;
}

std::string fix_reply(const std::string& verdict, const std::string& tag) {
  return kLongProse + "\n\n```cuda\n" + kernel(verdict, tag) + "```\n";
}

class Build : public ::testing::Test {
 protected:
  void SetUp() override {
    ProblemRegistry reg(repo() / "problems");
    for (const auto& n : {"mha_fwd", "mha_bwd", "gemm"}) specs_[n] = std::make_unique<ProblemSpec>(reg.load(n));
    for (auto& [n, s] : specs_) problems_[n] = s.get();
    store_ = std::make_unique<FixitStore>(dir_.path() / "ptxbench.db");
    ASSERT_TRUE(store_->status().ok) << store_->status().error;
    recipe_.name = "t";
    recipe_.sha256 = "recipe-sha";
    recipe_.suite = "4ops";
    recipe_.classes = {"compile_error",   "forbidden", "runtime_error",
                       "sanitizer_error", "incorrect", "correct_no_target"};
  }
  BuildOutcome build(const std::vector<SourceTurn>& turns, ModelClient* teacher, CandidateService& service) {
    TeacherSetup t;
    t.client = teacher;
    t.spec = teacher ? "scripted:teacher" : "";
    t.prices = TokenPrices{1.0, 2.0};
    BuildOptions o;
    o.sources = {"test"};
    o.parallel = 3;
    o.max_infra_errors = 100;
    Builder b(*store_, service, recipe_, suite_, problems_, t, o, log_);
    return b.run(turns);
  }
  std::vector<FixitItemRow> items(const std::string& build) {
    std::vector<FixitItemRow> out;
    EXPECT_TRUE(store_->load_items(build, &out).ok);
    return out;
  }
  std::vector<FixitRecordRow> records(const std::string& build) {
    std::vector<FixitRecordRow> out;
    EXPECT_TRUE(store_->load_records(build, &out).ok);
    return out;
  }
  test::TempDir dir_;
  std::map<std::string, std::unique_ptr<ProblemSpec>> specs_;
  std::map<std::string, const ProblemSpec*> problems_;
  std::unique_ptr<FixitStore> store_;
  Recipe recipe_;
  SuiteSplits suite_{"4ops", {{"mha_fwd", "train"}, {"mha_bwd", "train"}, {"gemm", "held-out"}}};
  std::ostringstream log_;
};

TEST_F(Build, ALaterTurnThatFixedItIsJudgedAgainAndExplainedByTheTeacher) {
  auto failing = turn("r", "mha_fwd", 0, 0, "compile_error", kernel("compile_error", "a"));
  auto fixed = turn("r", "mha_fwd", 0, 1, "correct", kernel("correct", "b"));
  test::FakeCandidateService service;
  test::ScriptedClient teacher([](const ChatRequest& r) {
    EXPECT_EQ(r.at.turn, 100);  // an explanation request
    return answer("The semicolon was missing after the struct; the fix adds it and nothing else. " + kLongProse);
  });
  const BuildOutcome out = build({failing, fixed}, &teacher, service);
  EXPECT_EQ(out.status, "complete") << out.stop_reason << log_.str();
  EXPECT_EQ(out.records, 1);
  EXPECT_EQ(out.teacher_calls, 1);
  EXPECT_EQ(service.submits(), 1);  // the later turn, judged again
  const auto recs = records(out.build_id);
  ASSERT_EQ(recs.size(), 1u);
  const json& r = recs[0].record;
  EXPECT_EQ(r["fix"]["source"], "trajectory");
  EXPECT_EQ(r["fix"]["turn"]["turn"], 1);
  EXPECT_EQ(r["target"]["explanation_source"], "teacher_explain");
  EXPECT_EQ(r["error"]["class"], "compile_error");
  EXPECT_EQ(r["context"]["failing_kernel"], kernel("compile_error", "a"));
  EXPECT_EQ(r["context"]["system"], "You write kernels.");
  EXPECT_EQ(r["context"]["system_source"], "as_sent");
  EXPECT_EQ(r["split"], "train");
  EXPECT_NE(r["target"]["message"].get<std::string>().find("```cuda\n" + kernel("correct", "b")), std::string::npos);
  EXPECT_DOUBLE_EQ(r["provenance"]["teacher"]["cost_usd"].get<double>(), 1000 * 1e-6 + 200 * 2e-6);
}

TEST_F(Build, WithoutATeacherAFixWithoutProseIsDroppedSayingWhy) {
  auto failing = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "a"));
  auto fixed = turn("r", "mha_fwd", 0, 1, "correct", kernel("correct", "b"));
  auto lonely = turn("r", "mha_fwd", 1, 0, "incorrect", kernel("incorrect", "c"));
  test::FakeCandidateService service;
  const BuildOutcome out = build({failing, fixed, lonely}, nullptr, service);
  EXPECT_EQ(out.records, 0);
  EXPECT_EQ(out.items.at("dropped"), 2);
  for (const auto& i : items(out.build_id)) {
    if (i.source["trajectory"] == 0) {
      EXPECT_NE(i.reason.find("no explanation: the fixing reply explains nothing"), std::string::npos) << i.reason;
    } else
      EXPECT_NE(i.reason.find("no fix: no later turn of its trajectory fixed it, and no teacher is set"),
                std::string::npos)
          << i.reason;
  }
  // With the prose long enough, the trajectory's own words are the explanation.
  recipe_.sha256 = "other";
  fixed.reply = kLongProse + "\n```cuda\n" + fixed.candidate + "```\n";
  const BuildOutcome again = build({failing, fixed, lonely}, nullptr, service);
  EXPECT_EQ(again.records, 1);
  EXPECT_EQ(records(again.build_id)[0].record["target"]["explanation"], kLongProse);
  EXPECT_EQ(records(again.build_id)[0].record["target"]["explanation_source"], "fixing_turn");
}

TEST_F(Build, TheTeacherIsRetriedWithTheFeedbackUntilItsFixIsCorrect) {
  auto failing = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "a"));
  test::FakeCandidateService service;
  test::ScriptedClient teacher([](const ChatRequest& r) {
    if (r.at.turn == 0) return answer("I think this is it.");  // malformed: no code
    if (r.at.turn == 1) return answer(fix_reply("incorrect", "wrong fix"));
    return answer(fix_reply("correct", "right fix"));
  });
  const BuildOutcome out = build({failing}, &teacher, service);
  EXPECT_EQ(out.status, "complete") << out.stop_reason;
  EXPECT_EQ(out.records, 1);
  EXPECT_EQ(out.teacher_calls, 3);
  EXPECT_EQ(service.submits(), 2);  // the malformed reply is never judged
  const auto reqs = teacher.requests();
  ASSERT_EQ(reqs.size(), 3u);
  ASSERT_EQ(reqs[2].messages.size(), 5u);  // the task, then each earlier reply and what it got
  EXPECT_NE(reqs[2].messages[2].content.find("no code block"), std::string::npos) << reqs[2].messages[2].content;
  EXPECT_NE(reqs[2].messages[4].content.find("INCORRECT"), std::string::npos) << reqs[2].messages[4].content;
  const json r = records(out.build_id)[0].record;
  EXPECT_EQ(r["fix"]["source"], "teacher");
  EXPECT_EQ(r["fix"]["teacher_attempts"], 3);
  EXPECT_EQ(r["target"]["explanation"], kLongProse);
  EXPECT_EQ(r["target"]["explanation_source"], "teacher_fix");
  EXPECT_EQ(r["provenance"]["teacher"]["calls"], 3);
  EXPECT_EQ(r["provenance"]["teacher"]["prompt_version"], "fixit-teacher/1");
}

TEST_F(Build, AFixThatNeverPassesIsDroppedAfterTheAttemptsWithTheLastReason) {
  recipe_.fix.attempts = 2;
  auto failing = turn("r", "mha_fwd", 0, 0, "correct", kernel("correct", "a"), false);  // correct_no_target
  test::FakeCandidateService service;
  test::ScriptedClient teacher([](const ChatRequest&) {
    return answer(kLongProse + "\n```cuda\n" + kernel("correct", "t", "// target: no\n") + "```\n");
  });
  const BuildOutcome out = build({failing}, &teacher, service);
  EXPECT_EQ(out.items.at("dropped"), 1);
  EXPECT_EQ(out.teacher_calls, 2);
  const auto it = items(out.build_id);
  EXPECT_EQ(it[0].error_class, "correct_no_target");
  EXPECT_EQ(it[0].reason,
            "teacher: 2 attempt(s), none fixed it; the last: the fix is correct, but its target instructions did "
            "not do the problem's work (target_executed false: a target group did not run, or the timed calls "
            "fell short of the problem's allowlist bounds)");
}

TEST_F(Build, InfraErrorsLeaveItemsPendingAndTheNextInvocationRepeatsNoStoredTeacherCall) {
  auto a = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "a"));
  auto b = turn("r", "mha_fwd", 1, 0, "incorrect", kernel("incorrect", "b"));
  std::atomic<int> calls{0};
  // First invocation: a's teacher times out; b's fix is stored but the harness fails judging it.
  test::ScriptedClient flaky([&](const ChatRequest& r) {
    ++calls;
    if (r.messages[0].content.find("// b") != std::string::npos)
      return answer(fix_reply("correct", "b fixed\n// throw"));
    return answer("", ProviderOutcome::infra_error);
  });
  test::FakeCandidateService broken;
  const BuildOutcome first = build({a, b}, &flaky, broken);
  EXPECT_EQ(first.status, "stopped");
  EXPECT_EQ(first.items.at("pending"), 2);
  EXPECT_EQ(first.records, 0);
  EXPECT_EQ(first.infra_errors, 2);
  EXPECT_EQ(calls.load(), 2);
  // Second invocation: the stored fix of b is judged without asking the teacher again, and a's
  // teacher answers now.
  int second_calls = 0;
  test::ScriptedClient teacher([&](const ChatRequest& r) {
    ++second_calls;
    EXPECT_EQ(r.messages[0].content.find("// b"), std::string::npos) << "b's stored reply was asked for again";
    return answer(fix_reply("correct", "a fixed"));
  });
  // The stored b fix carries "// throw": judged by a service that ignores it, it must come out correct.
  struct Ignoring : test::FakeCandidateService {
    CandidateTicket submit(CandidateJob job) override {
      for (auto at = job.source.find("// throw"); at != std::string::npos; at = job.source.find("// throw"))
        job.source.erase(at, 8);
      return FakeCandidateService::submit(job);
    }
  } ignoring;
  const BuildOutcome second = build({a, b}, &teacher, ignoring);
  EXPECT_EQ(second.build_id, first.build_id);
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.status, "complete") << second.stop_reason;
  for (const auto& i : items(second.build_id)) EXPECT_EQ(i.status, "record") << i.reason;
  EXPECT_EQ(second.records, 2);
  EXPECT_EQ(second_calls, 1);
  // Every teacher call is kept: the timeout, b's fix, a's fix.
  std::vector<FixitAttemptRow> attempts;
  ASSERT_TRUE(store_->load_all_attempts(second.build_id, &attempts).ok);
  EXPECT_EQ(attempts.size(), 3u);
}

TEST_F(Build, NoGpuStageLeavesItemsPendingWithTheReason) {
  auto a = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "a"));
  test::FakeCandidateService service;
  // No "// verdict:" line: the fake service says not_run, as a host without a GPU does.
  test::ScriptedClient teacher([](const ChatRequest&) {
    return answer(kLongProse +
                  "\n```cuda\nextern \"C\" cudaError_t ptxbench_mha_fwd(const void* q) { return cudaSuccess; }\n```\n");
  });
  const BuildOutcome out = build({a}, &teacher, service);
  EXPECT_EQ(out.items.at("pending"), 1);
  EXPECT_NE(items(out.build_id)[0].reason.find("no GPU stage ran"), std::string::npos) << items(out.build_id)[0].reason;
}

TEST_F(Build, HeldOutAndDuplicateItemsAreStoredWithTheirReasonsAndNeverFixed) {
  auto g = turn("r", "gemm", 0, 0, "incorrect", kernel("incorrect", "g"));
  auto m1 = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "m"));
  auto m2 = turn("r", "mha_fwd", 1, 0, "incorrect", kernel("incorrect", "m"));
  test::FakeCandidateService service;
  test::ScriptedClient teacher([](const ChatRequest&) { return answer(fix_reply("correct", "f")); });
  const BuildOutcome out = build({g, m1, m2}, &teacher, service);
  EXPECT_EQ(out.items.at("refused"), 1);
  EXPECT_EQ(out.items.at("skipped"), 1);
  EXPECT_EQ(out.records, 1);
  EXPECT_EQ(teacher.requests().size(), 1u);
  EXPECT_EQ(out.reasons.at("held_out"), 1);
  EXPECT_EQ(out.reasons.at("duplicate"), 1);
}

TEST_F(Build, PostBalancingKeepsRecordsStoredButOutOfTheDataset) {
  recipe_.balance = Balance::post;
  recipe_.per_problem = 2;
  std::vector<SourceTurn> turns;
  for (int t = 0; t < 5; ++t)
    turns.push_back(turn("r", "mha_fwd", t, 0, "incorrect", kernel("incorrect", std::to_string(t))));
  test::FakeCandidateService service;
  test::ScriptedClient teacher(
      [](const ChatRequest& r) { return answer(fix_reply("correct", "fix " + std::to_string(r.at.trajectory))); });
  const BuildOutcome out = build(turns, &teacher, service);
  EXPECT_EQ(out.records, 5);
  EXPECT_EQ(out.records_in_dataset, 2);
  int excluded = 0;
  for (const auto& r : records(out.build_id)) {
    if (r.in_dataset) continue;
    ++excluded;
    EXPECT_EQ(r.excluded_reason, "capped (post-balance): problem cap 2 (mha_fwd)");
  }
  EXPECT_EQ(excluded, 3);
}

TEST_F(Build, StatsTablesCountRecordsByProblemClassAndSourceAndItemsByReason) {
  auto failing = turn("r", "mha_fwd", 0, 0, "incorrect", kernel("incorrect", "a"));
  auto g = turn("r", "gemm", 0, 0, "incorrect", kernel("incorrect", "g"));
  test::FakeCandidateService service;
  test::ScriptedClient teacher([](const ChatRequest&) { return answer(fix_reply("correct", "f")); });
  const BuildOutcome out = build({failing, g}, &teacher, service);
  report::Report r;
  ASSERT_TRUE(report::add_fixit_tables(*store_, {out.build_id}, true, &r).ok);
  const report::Table* builds = r.table("fixit_builds");
  ASSERT_TRUE(builds && builds->rows.size() == 1u);
  EXPECT_EQ(std::get<long long>(builds->at(0, "records")), 1);
  EXPECT_EQ(std::get<long long>(builds->at(0, "refused")), 1);
  EXPECT_EQ(std::get<long long>(builds->at(0, "teacher_calls")), 1);
  EXPECT_DOUBLE_EQ(std::get<double>(builds->at(0, "teacher_cost_usd")), 1000 * 1e-6 + 200 * 2e-6);
  const report::Table* records = r.table("fixit_records");
  ASSERT_TRUE(records && records->rows.size() == 1u);
  EXPECT_EQ(std::get<std::string>(records->at(0, "error_class")), "incorrect");
  EXPECT_EQ(std::get<std::string>(records->at(0, "fix_source")), "teacher");
  EXPECT_EQ(std::get<std::string>(records->at(0, "teacher")), "scripted:teacher (fixit-teacher/1)");
  const report::Table* its = r.table("fixit_items");
  ASSERT_TRUE(its && its->rows.size() == 2u);
  EXPECT_EQ(std::get<std::string>(its->at(0, "problem")), "gemm");
  EXPECT_EQ(std::get<std::string>(its->at(0, "reason")), "held_out");
}

TEST_F(Build, KernelGenRecordsAreCorrectTurnsJudgedAgain) {
  recipe_.template_kind = Template::kernelgen;
  recipe_.classes.clear();
  auto good = turn("r", "mha_fwd", 0, 0, "correct", kernel("correct", "k"));
  good.reply = kLongProse + "\n```cuda\n" + good.candidate + "```\n";
  auto stale = turn("r", "mha_fwd", 1, 0, "correct", kernel("incorrect", "stale"));  // stored correct, now wrong
  test::FakeCandidateService service;
  const BuildOutcome out = build({good, stale}, nullptr, service);
  EXPECT_EQ(out.records, 1);
  EXPECT_EQ(out.items.at("dropped"), 1);
  const json r = records(out.build_id)[0].record;
  EXPECT_EQ(r["template"], "kernelgen");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(r["context"]["failed_reply"], "");
  EXPECT_EQ(r["target"]["explanation_source"], "source_turn");
}

}  // namespace

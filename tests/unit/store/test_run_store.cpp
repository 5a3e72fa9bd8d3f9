// The run store: runs, turns in two commits, model calls with exact bytes, export and read-back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/content_hash.h"
#include "store/recorded_replies.h"
#include "store/run_export.h"
#include "store/run_lock.h"
#include "store/run_store.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

RunInfo run_info(const std::string& id = "r1", const std::string& identity = "id-1") {
  RunInfo r;
  r.id = id;
  r.model = "files:/x";
  r.arch = "sm_90a";
  r.knowledge = "params,ptx,contract";
  r.problems = {"gemm"};
  r.trajectories = 2;
  r.turns = 2;
  r.identity_sha256 = identity;
  r.config = {{"context_turns", 3}};
  r.provenance = {{"gpu", {{"name", "none"}}}};
  return r;
}

ModelCallRow call(int traj, int turn, const std::string& outcome = "ok") {
  ModelCallRow c;
  c.run_id = "r1";
  c.problem = "gemm";
  c.trajectory = traj;
  c.turn = turn;
  c.started_at = "2026-12-01T00:00:00.000Z";
  c.seconds = 1.5;
  c.outcome = outcome;
  c.finish_reason = "stop";
  c.model = "m";
  c.input_tokens = 100;
  c.output_tokens = std::nullopt;
  c.request = {{"messages", json::array({{{"role", "user"}, {"content", "P"}}})}};
  c.system_text = "SYSTEM TEXT";
  c.request_bytes = std::string("{\"exact\":\"bytes\x01\"}", 18);
  c.response_bytes = "{\"choices\":[]}";
  c.content = "```cuda\nint a;\n```";
  c.reasoning = "because";
  return c;
}

TurnRow turn(int traj, int n) {
  TurnRow t;
  t.run_id = "r1";
  t.problem = "gemm";
  t.trajectory = traj;
  t.turn = n;
  t.phase = "judging";
  t.state = "pending";
  t.provider_outcome = "ok";
  t.extraction = {{"found", true}};
  t.context = {{"full", json::array()}};
  t.input_tokens = 100;
  t.reasoning_chars = 7;
  t.cost_usd = 0.25;
  t.model_seconds = 1.5;
  t.started_at = "a";
  t.replied_at = "b";
  t.feedback_version = "feedback/1";
  return t;
}

EvaluationRecord record(const std::string& source, Verdict v) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.candidate_path = "c.cu";
  r.candidate_sha256 = content_sha256(source);
  r.created_at = "2026-12-01T00:00:00Z";
  r.verdict = v;
  r.add_stage({"build", StageStatus::ok, 1.25, "built", json::object()});
  return r;
}

}  // namespace

TEST(RunStore, OpenCreatesThenResumesAndRefusesAnotherIdentity) {
  test::TempDir d;
  RunStore store(d.path() / "ptxbench.db");
  ASSERT_TRUE(store.status().ok) << store.status().error;
  RunInfo got;
  bool created = false;
  ASSERT_TRUE(store.open_run(run_info(), &got, &created).ok);
  EXPECT_TRUE(created);
  EXPECT_EQ(got.status, "running");
  std::vector<TrajectoryRow> trajectories;
  ASSERT_TRUE(store.load_trajectories("r1", &trajectories).ok);
  EXPECT_EQ(trajectories.size(), 2u);
  ASSERT_TRUE(store.set_run_status("r1", "stopped", "quota").ok);

  RunInfo bigger = run_info();
  bigger.turns = 5;
  ASSERT_TRUE(store.open_run(bigger, &got, &created).ok);
  EXPECT_FALSE(created);
  EXPECT_EQ(got.turns, 5);
  EXPECT_EQ(got.status, "running");
  EXPECT_EQ(got.stop_reason, "");

  auto other = store.open_run(run_info("r1", "id-2"), &got, &created);
  EXPECT_FALSE(other.ok);
  EXPECT_NE(other.error.find("different configuration"), std::string::npos) << other.error;
  std::vector<RunInfo> runs;
  ASSERT_TRUE(store.list_runs(&runs).ok);
  EXPECT_EQ(runs.size(), 1u);
}

TEST(RunStore, TurnIsStoredInTwoCommitsAndRoundTrips) {
  test::TempDir d;
  const std::string source = "int a;\n";
  {
    RunStore store(d.path() / "ptxbench.db");
    RunInfo got;
    ASSERT_TRUE(store.open_run(run_info(), &got, nullptr).ok);
    ModelCallRow c = call(0, 0);
    TurnRow t = turn(0, 0);
    ASSERT_TRUE(store.store_reply(c, t, &source).ok);
    EXPECT_GT(c.id, 0);
    EXPECT_EQ(t.candidate_sha256, content_sha256(source));
    ModelCallRow duplicate = call(0, 0);
    TurnRow again = turn(0, 0);
    EXPECT_FALSE(store.store_reply(duplicate, again, &source).ok) << "a turn can never be stored twice";

    t.verdict = "not_run";
    t.state = "not_run";
    t.target_static = false;
    t.feedback = "## Result";
    t.finished_at = "c";
    const EvaluationRecord r = record(source, Verdict::not_run);
    ASSERT_TRUE(store.finish_turn(t, &r).ok);
    EXPECT_TRUE(t.evaluation_id.has_value());
  }
  RunStore store(d.path() / "ptxbench.db");  // reopened
  std::vector<TurnRow> turns;
  ASSERT_TRUE(store.load_turns("r1", &turns).ok);
  ASSERT_EQ(turns.size(), 1u);
  const TurnRow& t = turns[0];
  EXPECT_EQ(t.phase, "done");
  EXPECT_EQ(t.state, "not_run");
  EXPECT_EQ(t.verdict, "not_run");
  EXPECT_EQ(t.target_static, false);
  EXPECT_FALSE(t.target_executed.has_value());
  EXPECT_EQ(t.input_tokens, 100);
  EXPECT_FALSE(t.output_tokens.has_value());
  EXPECT_DOUBLE_EQ(*t.cost_usd, 0.25);
  EXPECT_EQ(t.feedback, "## Result");
  EXPECT_EQ(t.context, json({{"full", json::array()}}));
  ModelCallRow c;
  ASSERT_TRUE(store.load_model_call(t.model_call_id, &c).ok);
  EXPECT_EQ(c.request_bytes, std::string("{\"exact\":\"bytes\x01\"}", 18)) << "exact bytes";
  EXPECT_EQ(c.response_bytes, "{\"choices\":[]}");
  EXPECT_EQ(c.system_text, "SYSTEM TEXT");
  EXPECT_EQ(c.content, "```cuda\nint a;\n```");
  EXPECT_FALSE(c.output_tokens.has_value());
  std::string src;
  ASSERT_TRUE(store.candidate_source(*t.candidate_sha256, &src).ok);
  EXPECT_EQ(src, source);
  EvaluationRecord rec;
  ASSERT_TRUE(store.evaluation(*t.evaluation_id, &rec).ok);
  EXPECT_EQ(rec.verdict, Verdict::not_run);
  std::vector<TrajectoryRow> trajectories;
  ASSERT_TRUE(store.load_trajectories("r1", &trajectories).ok);
  EXPECT_EQ(trajectories[0].turns_done, 1);
  EXPECT_EQ(trajectories[0].status, "open");
}

TEST(RunStore, UncountedCallsAreKeptAndCounted) {
  test::TempDir d;
  RunStore store(d.path() / "ptxbench.db");
  RunInfo got;
  ASSERT_TRUE(store.open_run(run_info(), &got, nullptr).ok);
  ModelCallRow infra = call(1, 0, "infra_error");
  ASSERT_TRUE(store.record_model_call(infra).ok);
  int n = 0;
  ASSERT_TRUE(store.count_model_calls("r1", "gemm", 1, 0, &n).ok);
  EXPECT_EQ(n, 1);
  std::vector<TurnRow> turns;
  ASSERT_TRUE(store.load_turns("r1", &turns).ok);
  EXPECT_TRUE(turns.empty()) << "an infra error is no turn";
}

TEST(RunStore, TrajectoryCompletesAtTheBudgetAndRescoreReplacesTheVerdict) {
  test::TempDir d;
  RunStore store(d.path() / "ptxbench.db");
  RunInfo got;
  ASSERT_TRUE(store.open_run(run_info(), &got, nullptr).ok);
  for (int i = 0; i < 2; ++i) {
    ModelCallRow c = call(0, i);
    TurnRow t = turn(0, i);
    t.phase = "done";
    t.state = "no_code";
    ASSERT_TRUE(store.store_reply(c, t, nullptr).ok);
  }
  std::vector<TrajectoryRow> trajectories;
  ASSERT_TRUE(store.load_trajectories("r1", &trajectories).ok);
  EXPECT_EQ(trajectories[0].status, "complete");
  EXPECT_EQ(trajectories[1].status, "open");

  const std::string source = "int b;\n";
  ModelCallRow c = call(1, 0);
  TurnRow t = turn(1, 0);
  ASSERT_TRUE(store.store_reply(c, t, &source).ok);
  auto r = record(source, Verdict::not_run);
  t.state = "not_run";
  ASSERT_TRUE(store.finish_turn(t, &r).ok);
  const long long first = *t.evaluation_id;
  auto again = record(source, Verdict::correct);
  t.state = "correct";
  t.verdict = "correct";
  ASSERT_TRUE(store.rescore_turn(t, &again).ok);
  EXPECT_NE(*t.evaluation_id, first);
  std::vector<TurnRow> turns;
  ASSERT_TRUE(store.load_turns("r1", &turns).ok);
  EXPECT_EQ(turns.back().state, "correct");
  EXPECT_EQ(turns.back().feedback, t.feedback) << "the feedback the model saw stays";
}

TEST(RunStore, ExportIsReadBackForReplayFromJsonlAndFromTheDatabase) {
  test::TempDir d;
  const auto db = d.path() / "ptxbench.db";
  {
    RunStore store(db);
    RunInfo got;
    ASSERT_TRUE(store.open_run(run_info(), &got, nullptr).ok);
    const std::string source = "int a;\n";
    ModelCallRow c = call(0, 0);
    TurnRow t = turn(0, 0);
    ASSERT_TRUE(store.store_reply(c, t, &source).ok);
    t.state = "compile_error";
    t.verdict = "compile_error";
    auto r = record(source, Verdict::compile_error);
    ASSERT_TRUE(store.finish_turn(t, &r).ok);
    ModelCallRow c2 = call(0, 1, "refused");
    c2.content = "";
    TurnRow t2 = turn(0, 1);
    t2.phase = "done";
    t2.state = "refused";
    t2.provider_outcome = "refused";
    ASSERT_TRUE(store.store_reply(c2, t2, nullptr).ok);

    std::ostringstream out;
    size_t lines = 0;
    ASSERT_TRUE(export_run_jsonl(store, "r1", out, {}, &lines).ok);
    EXPECT_EQ(lines, 2u);
    std::ofstream(d.path() / "run.jsonl") << out.str();
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    const json j = json::parse(line);
    EXPECT_EQ(j["format"], kTurnExportFormat);
    EXPECT_EQ(j["run"]["id"], "r1");
    EXPECT_EQ(j["state"], "compile_error");
    EXPECT_EQ(j["candidate"]["source"], source);
    EXPECT_EQ(j["evaluation"]["verdict"], "compile_error");
    EXPECT_EQ(j["timings"]["model_s"], 1.5);
    EXPECT_EQ(j["reply"]["response_body"], "{\"choices\":[]}");
    EXPECT_FALSE(j["request"].contains("body")) << "request bodies only when asked";
  }
  for (const auto& source : {d.path() / "run.jsonl", d.path(), db}) {
    SCOPED_TRACE(source.string());
    RecordedRun rec;
    ASSERT_TRUE(read_recorded_run(source, "", &rec).ok);
    EXPECT_EQ(rec.run_id, "r1");
    ASSERT_EQ(rec.replies.size(), 2u);
    const auto& first = rec.replies.at({"gemm", 0, 0});
    EXPECT_EQ(first.outcome, "ok");
    EXPECT_EQ(first.content, "```cuda\nint a;\n```");
    EXPECT_EQ(first.reasoning, "because");
    EXPECT_EQ(first.input_tokens, 100);
    EXPECT_FALSE(first.output_tokens.has_value());
    EXPECT_EQ(rec.replies.at({"gemm", 0, 1}).outcome, "refused");
  }
  RecordedRun rec;
  auto missing = read_recorded_run(d.path() / "run.jsonl", "r9", &rec);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("no run 'r9'"), std::string::npos) << missing.error;
}

TEST(RecordedReplies, MalformedJsonlNamesTheLine) {
  test::TempDir d;
  std::ofstream(d.path() / "bad.jsonl") << "{\"format\": \"ptxbench.turn/1\", \"run\": {\"id\": \"r\"}}\n";
  RecordedRun rec;
  auto s = read_recorded_run(d.path() / "bad.jsonl", "", &rec);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.error.find("bad.jsonl:1:"), std::string::npos) << s.error;
  std::ofstream(d.path() / "other.jsonl") << "{\"format\": \"something\"}\n";
  s = read_recorded_run(d.path() / "other.jsonl", "", &rec);
  EXPECT_NE(s.error.find("expected ptxbench.turn/1"), std::string::npos) << s.error;
}

TEST(RunLock, OneHolderPerRunAndReleasedWithTheHolder) {
  test::TempDir d;
  {
    RunLock first(d.path(), "r1");
    ASSERT_TRUE(first.held()) << first.error();
    RunLock second(d.path(), "r1");
    EXPECT_FALSE(second.held());
    EXPECT_NE(second.error().find("in use by another ptxbench process (pid " + std::to_string(getpid()) + ")"),
              std::string::npos)
        << second.error();
    RunLock other(d.path(), "r2");
    EXPECT_TRUE(other.held()) << "another run is not blocked";
  }
  RunLock again(d.path(), "r1");
  EXPECT_TRUE(again.held()) << "released when its holder went away";
}

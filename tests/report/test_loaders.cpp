// The loaders: this project's JSONL lines, the agent's JSONL export (ptxbench.turn/1) and the
// agent's workspace database; bad input names the file, line and field.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"
#include "fixtures.h"
#include "metrics/grouping.h"
#include "metrics/load_workspace.h"
#include "store/workspace_db.h"
#include "support/agent_run_store_schema.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::metrics;

namespace {

std::filesystem::path temp_dir(const std::string& name) {
  static const ptxbench::test::TempDir root("ptxbench-report");  // removed when the test process ends
  auto d = root.path() / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::filesystem::path write_lines(const std::string& name, const std::vector<std::string>& lines) {
  const auto p = temp_dir("jsonl") / name;
  std::ofstream f(p);
  for (const auto& l : lines) f << l << "\n";
  return p;
}

std::string error_of(const std::filesystem::path& p) {
  try {
    load_jsonl(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kRun =
    R"({"kind": "run", "id": "r", "model": "m", "arch": "sm_90a", "knowledge": "params", "trajectories": 1, "turns": 2})";

TEST(JsonlLoader, ReadsRunsAndTurnsAndDerivesFinished) {
  const auto set = test::load_fixture("edge_cases.jsonl", true);
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_EQ(set.runs[0].problems, (std::vector<std::string>{"mha_fwd", "mha_bwd"}));
  EXPECT_EQ(set.turns.size(), 25u);
  const auto& t = set.turns.front();
  EXPECT_EQ(t.model, "vllm:edge-model");
  EXPECT_EQ(t.split, "train");
  EXPECT_EQ(t.gpu, "NVIDIA H200");
  EXPECT_EQ(*t.stored.reasoning_tokens, 120);
  for (const auto& x : set.turns)
    if (x.problem == "mha_fwd" && x.trajectory == 1) {
      EXPECT_FALSE(x.finished);
    }
}

TEST(JsonlLoader, BadInputNamesFileLineAndField) {
  auto e = error_of(write_lines(
      "a.jsonl",
      {kRun, R"({"kind": "turn", "run": "r", "problem": "gemm", "trajectory": 0, "turn": 1, "state": "great"})"}));
  EXPECT_NE(e.find("a.jsonl:2"), std::string::npos) << e;
  EXPECT_NE(e.find("'state'"), std::string::npos) << e;
  EXPECT_NE(e.find("great"), std::string::npos) << e;
  e = error_of(write_lines(
      "b.jsonl",
      {kRun, R"({"kind": "turn", "run": "r", "problem": "gemm", "trajectory": 0, "turn": 0, "state": "correct"})"}));
  EXPECT_NE(e.find("b.jsonl:2: field 'turn' must be an integer >= 1"), std::string::npos) << e;
  e = error_of(write_lines(
      "c.jsonl",
      {R"({"kind": "turn", "run": "nope", "problem": "gemm", "trajectory": 0, "turn": 1, "state": "correct"})"}));
  EXPECT_NE(e.find("c.jsonl:1: turn names run 'nope'"), std::string::npos) << e;
  e = error_of(write_lines("d.jsonl", {kRun, "{not json"}));
  EXPECT_NE(e.find("d.jsonl:2: not a JSON object"), std::string::npos) << e;
  e = error_of(write_lines(
      "e.jsonl", {R"({"kind": "run", "id": "r", "model": "m", "arch": "sm_90a", "knowledge": "params", "turns": 2})"}));
  EXPECT_NE(e.find("e.jsonl:1: field 'trajectories' is missing"), std::string::npos) << e;
  e = error_of(write_lines(
      "f.jsonl",
      {kRun,
       R"({"kind": "turn", "run": "r", "problem": "g", "trajectory": 0, "turn": 1, "state": "correct", "speedup_geomean": -1})"}));
  EXPECT_NE(e.find("'speedup_geomean' must be a number > 0"), std::string::npos) << e;
  e = error_of(write_lines("g.jsonl", {R"({"format": "something/9"})"}));
  EXPECT_NE(e.find("unknown format 'something/9'"), std::string::npos) << e;
  // A duplicate turn is found when trajectories are indexed.
  const auto dup = load_jsonl(write_lines(
      "h.jsonl",
      {kRun, R"({"kind": "turn", "run": "r", "problem": "g", "trajectory": 0, "turn": 1, "state": "incorrect"})",
       R"({"kind": "turn", "run": "r", "problem": "g", "trajectory": 0, "turn": 1, "state": "correct"})"}));
  try {
    index_trajectories(dup);
    FAIL();
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find("turn 1 appears twice"), std::string::npos) << x.what();
  }
  EXPECT_THROW(load_jsonl("/does/not/exist.jsonl"), InputError);
}

TEST(JsonlLoader, TheAgentsExportFormat) {
  // tests/fixtures/report/agent_export.jsonl: ptxbench.turn/1 lines as `ptxbench runs export` writes
  // them (turns and trajectories 0-based; the last turn still judging).
  const auto set = test::load_fixture("agent_export.jsonl", true);
  ASSERT_EQ(set.runs.size(), 1u);
  const auto& run = set.runs[0];
  EXPECT_EQ(run.id, "r-agent");
  EXPECT_EQ(run.turns, 2);
  EXPECT_EQ(run.gpu, "NVIDIA H200");
  EXPECT_EQ(run.provenance["harness"]["commit"], "fedcba9876543210fedcba9876543210fedcba98");
  EXPECT_EQ(run.provenance["nvml_driver"], "580.95.05");  // from its evaluations' environment
  ASSERT_EQ(set.turns.size(), 4u);
  EXPECT_EQ(set.turns[0].turn, 1);
  EXPECT_EQ(set.turns[0].state, TurnState::compile_error);
  EXPECT_EQ(set.turns[1].turn, 2);
  EXPECT_TRUE(set.turns[1].target_correct());
  EXPECT_DOUBLE_EQ(*set.turns[1].stored.speedup_geomean, 0.8);
  ASSERT_EQ(set.turns[1].shapes.size(), 1u);
  EXPECT_EQ(set.turns[1].shapes[0].shape, "M=4096 N=4096 K=4096");  // the shape object's keys, in order
  EXPECT_DOUBLE_EQ(*set.turns[1].shapes[0].median_ms, 0.25);
  EXPECT_EQ(set.turns[1].reason, "correct on every shape and seed");
  EXPECT_EQ(set.turns[1].code, "// code\n");
  EXPECT_EQ(set.turns[2].state, TurnState::truncated);
  EXPECT_EQ(set.turns[2].stored.reasoning_chars, 5000);
  EXPECT_EQ(set.turns[3].state, TurnState::pending);  // phase "judging"
  EXPECT_TRUE(set.turns[0].finished);
  EXPECT_FALSE(set.turns[3].finished);
}

void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg), SQLITE_OK) << (msg ? msg : "") << "\n" << sql;
}

std::string turn_sql(const std::string& problem, int traj, int turn, const std::string& phase, const std::string& state,
                     const std::string& target_executed, const std::string& speedup, const std::string& evaluation,
                     const std::string& candidate, const std::string& reasoning_tokens, int reasoning_chars) {
  return "INSERT INTO turns VALUES ('run-db', '" + problem + "', " + std::to_string(traj) + ", " +
         std::to_string(turn) + ", '" + phase + "', '" + state + "', 'ok', 1, " + candidate + ", '{}', " + evaluation +
         ", 0, NULL, NULL, " + target_executed + ", NULL, " + speedup + ", 'feedback " + std::to_string(turn) +
         "', 'feedback/1', '{}', 10, 20, " + reasoning_tokens + ", " + std::to_string(reasoning_chars) +
         ", NULL, 1, 0, 0, 0, 0, 0, '', '', '');";
}

TEST(WorkspaceLoader, ReadsTheAgentsRunStore) {
  const auto dir = temp_dir("db");
  const auto file = dir / "ptxbench.db";
  long long eval_id = 0;
  {
    WorkspaceDb db(file);  // the evaluations table, as `ptxbench eval` and the agent write it
    ASSERT_TRUE(db.status().ok) << db.status().error;
    EvaluationRecord r;
    r.problem = "gemm", r.arch = "sm_90a", r.gpu = "NVIDIA H200", r.verdict = Verdict::correct,
    r.reason = "correct on every shape";
    r.target_executed = true, r.speedup_geomean = 0.9;
    r.environment = {{"seed_policy", "fresh random seed per candidate"},
                     {"gpu_state_at_start", {{"driver", "580.95.05"}}}};
    ShapeTiming st;
    st.shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    st.median_ms = 0.2, st.baseline_median_ms = 0.18, st.speedup = 0.9;
    r.timing.push_back(st);
    ASSERT_TRUE(db.insert(r, &eval_id).ok);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  exec(db, test::kAgentRunStoreSchema);
  exec(
      db,
      R"(INSERT INTO runs VALUES ('run-db', '2026-12-01T10:00:00.000Z', '2026-12-01T10:05:00.000Z', 'stopped', 'interrupted',
              'openai:gpt-x', 'sm_90a', 'params,ptx,contract', 'gemm', 2, 2, 'abc', '{"suite": "paper", "splits": {"gemm": "held-out"}}',
              '{"harness": {"version": "0.1.0", "commit": "c0ffee", "dirty": false}, "nvcc": "13.0.88", "gpu": {"name": "NVIDIA H200", "hello": {"cuda_driver": 13000}}}');)");
  exec(db, "INSERT INTO trajectories VALUES ('run-db', 'gemm', 0, 2, 'complete'), ('run-db', 'gemm', 1, 1, 'open');");
  exec(db, "INSERT INTO candidates VALUES ('" + std::string(64, 'c') + "', 'extern \"C\" int f();', 20, '');");
  exec(db, turn_sql("gemm", 0, 0, "done", "compile_error", "NULL", "NULL", "NULL", "'" + std::string(64, 'c') + "'",
                    "NULL", 40));
  exec(db, turn_sql("gemm", 0, 1, "done", "correct", "1", "0.9", std::to_string(eval_id),
                    "'" + std::string(64, 'c') + "'", "NULL", 90));
  exec(db, turn_sql("gemm", 1, 0, "done", "no_code", "NULL", "NULL", "NULL", "NULL", "NULL", 10));
  exec(db, turn_sql("gemm", 1, 1, "judging", "pending", "NULL", "NULL", "NULL", "NULL", "NULL", 5));
  sqlite3_close(db);

  LoadOptions o;
  o.with_detail = true;
  const auto set = load_workspace(dir, o);
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_EQ(set.runs[0].suite, "paper");
  EXPECT_EQ(set.runs[0].problems, (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(set.runs[0].provenance["harness"]["commit"], "c0ffee");
  // What the run's provenance lacks comes from its evaluations' environment.
  EXPECT_EQ(set.runs[0].provenance["seed_policy"], "fresh random seed per candidate");
  EXPECT_EQ(set.runs[0].provenance["nvml_driver"], "580.95.05");
  ASSERT_EQ(set.turns.size(), 4u);
  const auto& t = set.turns[1];
  EXPECT_EQ(t.turn, 2);  // 0-based in the store
  EXPECT_TRUE(t.target_correct());
  EXPECT_DOUBLE_EQ(*t.stored.speedup_geomean, 0.9);
  EXPECT_EQ(t.split, "held-out");
  EXPECT_EQ(t.gpu, "NVIDIA H200");
  EXPECT_EQ(t.code, "extern \"C\" int f();");
  EXPECT_EQ(t.stored.feedback, "feedback 1");
  EXPECT_EQ(t.reason, "correct on every shape");
  ASSERT_EQ(t.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.shapes[0].baseline_median_ms, 0.18);
  EXPECT_TRUE(set.turns[0].finished);
  EXPECT_EQ(set.turns[3].state, TurnState::pending);
  EXPECT_FALSE(set.turns[3].finished);
  EXPECT_FALSE(set.turns[0].stored.reasoning_tokens);
  EXPECT_EQ(set.turns[0].stored.reasoning_chars, 40);

  // A run filter (an id no input has is the CLI's error, after every input is read), and a
  // database with only `ptxbench eval` results.
  o.runs = {"nope"};
  EXPECT_TRUE(load_workspace(dir, o).turns.empty());
  o.runs = {"run-db"};
  EXPECT_EQ(load_workspace(dir, o).turns.size(), 4u);
  const auto eval_only = temp_dir("evalonly");
  { WorkspaceDb only(eval_only / "ptxbench.db"); }
  try {
    load_workspace(eval_only);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no runs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_workspace(temp_dir("empty")), InputError);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(eval_only);
}

}  // namespace

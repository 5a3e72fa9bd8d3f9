// Small hand-made fixtures (tests/fixtures/report/edge_cases.jsonl, ablation.jsonl) for the cases
// the paper's numbers do not show: excluded turns, unfinished trajectories, ties, all-failed
// problems, runs with no GPU stage, empty budgets.
//
// edge-a (3 trajectories x 4 turns), mha_fwd:
//   traj 0: T(0.8)  infra_error  T(0.8)  incorrect
//   traj 1: compile_error  T(0.8)  pending  (turn 4 never stored: unfinished)
//   traj 2: truncated  no_code  runtime_error  C(1.1)
// mha_bwd (held-out split): every turn fails (compile_error, sanitizer_error, incorrect, forbidden...).
// edge-b (sm_100a, 1 x 2): gemm, both turns not_run.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "fixtures.h"
#include "metrics/best_speedup.h"
#include "metrics/comparison.h"
#include "metrics/coverage.h"
#include "metrics/fast_p.h"
#include "metrics/reasoning_length.h"
#include "metrics/transitions.h"
#include "metrics/turn_correctness.h"
#include "report/metrics_report.h"
#include "report/paper_layout.h"

using namespace ptxbench;
using namespace ptxbench::metrics;
using ptxbench::test::load_fixture;

namespace {

struct Edge : ::testing::Test {
  TurnSet set = load_fixture("edge_cases.jsonl");
  std::vector<Trajectory> trajectories = index_trajectories(set);
  std::vector<const Trajectory*> of(const std::string& run, const std::string& problem) const {
    std::vector<const Trajectory*> v;
    for (const auto& t : trajectories)
      if (t.run == run && t.problem == problem) v.push_back(&t);
    return v;
  }
};

TEST_F(Edge, InfraErrorAndPendingTurnsAreInNoDenominatorAndCountedApart) {
  const auto fwd = of("edge-a", "mha_fwd");
  // Budget 1: turn 1 of each trajectory: T, compile_error, truncated -> 1/3.
  const auto b1 = turn_correctness(fwd, 1);
  EXPECT_EQ(b1.target_correct.k, 1);
  EXPECT_EQ(b1.target_correct.n, 3);
  // Budget 4: traj 0 counts turns 1, 3, 4 (turn 2 infra_error); traj 1 turns 1, 2 (3 pending,
  // 4 missing); traj 2 all four: 9 counted turns; target-correct 3 (traj 0 t1, t3; traj 1 t2);
  // correct 4 (+ traj 2 t4, no targets).
  const auto b4 = turn_correctness(fwd, 4);
  EXPECT_EQ(b4.expected, 12);
  EXPECT_EQ(b4.correct.n, 9);
  EXPECT_EQ(b4.target_correct.k, 3);
  EXPECT_EQ(b4.correct.k, 4);
  EXPECT_EQ(b4.excluded_infra, 1);
  EXPECT_EQ(b4.excluded_not_run, 0);
  EXPECT_EQ(b4.missing, 2);  // traj 1: turn 3 pending, turn 4 never stored
  EXPECT_FALSE(b4.beyond_run_budget);
  EXPECT_TRUE(turn_correctness(fwd, 8).beyond_run_budget);
}

TEST_F(Edge, UnfinishedTrajectoriesAreReportedAsSuch) {
  const auto c = coverage(of("edge-a", "mha_fwd"));
  EXPECT_EQ(c.trajectories, 3);
  EXPECT_EQ(c.finished, 2);  // traj 0 (its infra_error turn is stored) and traj 2
  EXPECT_EQ(c.unfinished, 1);
  EXPECT_EQ(c.stored, 11);
  EXPECT_EQ(c.counted, 9);
  EXPECT_EQ(c.excluded_infra, 1);
  EXPECT_EQ(c.pending, 1);
  EXPECT_EQ(c.missing, 1);
  EXPECT_FALSE(of("edge-a", "mha_fwd")[1]->finished);
}

TEST_F(Edge, TiesInBestSpeedupGoToTheEarliestTurnThenTheFirstTrajectory) {
  // 0.8 at traj 0 t1, traj 0 t3 and traj 1 t2: traj 0 turn 1 is the best.
  const auto fwd = of("edge-a", "mha_fwd");
  const auto b = best_speedup(fwd, 4, true, {}, "edge");
  ASSERT_TRUE(b.value);
  EXPECT_DOUBLE_EQ(*b.value, 0.8);
  EXPECT_EQ(b.where->id, 0);
  EXPECT_EQ(b.turn, 1);
  EXPECT_EQ(b.trajectories_with_kernel, 2);
  EXPECT_EQ(trajectory_best(*fwd[0], 4, true)->turn, 1);
  // Same value, same turn, two trajectories: the first listed wins.
  const std::vector<const Trajectory*> swapped = {fwd[1], fwd[0]};
  const auto c = best_speedup(swapped, 2, true, {}, "edge");
  EXPECT_EQ(c.where->id, 0);  // traj 0 t1 is earlier than traj 1 t2
  const auto d = best_speedup({fwd[1], fwd[0]}, 4, false, {}, "edge");
  EXPECT_EQ(d.where->id, 0);
  // Unrestricted, budget 4: traj 2's C at 1.1.
  const auto any = best_speedup(fwd, 4, false, {}, "edge");
  EXPECT_DOUBLE_EQ(*any.value, 1.1);
  EXPECT_EQ(any.where->id, 2);
}

TEST_F(Edge, AnAllFailedProblemHasZeroRatesAndNoBestSpeedup) {
  const auto bwd = of("edge-a", "mha_bwd");
  const auto c = turn_correctness(bwd, 4);
  EXPECT_EQ(c.correct.n, 12);
  EXPECT_EQ(c.correct.k, 0);
  ASSERT_TRUE(c.target_correct.value());
  EXPECT_EQ(*c.target_correct.value(), 0.0);                 // zero, not n/a
  EXPECT_NEAR(c.target_correct.wilson()->hi, 0.2425, 1e-4);  // z^2/(n+z^2) = 3.8415/15.8415
  EXPECT_FALSE(best_speedup(bwd, 4, true, {}, "x").value);
  EXPECT_FALSE(best_speedup(bwd, 4, true, {}, "x").interval);
  const auto fp = fast_p(bwd, 4, false, FastpUnit::trajectory, fastp_grid(0));
  EXPECT_EQ(fp.points.front().rate.n, 3);
  EXPECT_EQ(fp.points.front().rate.k, 0);
  EXPECT_EQ(report::percent_cell(report::Value(0.0)), "\u2013");
  EXPECT_EQ(report::speedup_cell(report::Value()), "\u2013");
}

TEST_F(Edge, ARunWhereNoGpuStageRanHasNoRateAtAll) {
  const auto gemm = of("edge-b", "gemm");
  const auto c = turn_correctness(gemm, 2);
  EXPECT_EQ(c.correct.n, 0);
  EXPECT_EQ(c.excluded_not_run, 2);
  EXPECT_FALSE(c.correct.value());
  EXPECT_FALSE(c.correct.wilson());
  EXPECT_EQ(report::percent_cell(report::Value()), "n/a");
  // Its trajectory is no fast_p unit: no counted turn.
  EXPECT_EQ(fast_p(gemm, 2, true, FastpUnit::trajectory, fastp_grid(0)).points.front().rate.n, 0);
  // Reasoning still has its replies (not_run turns were answered), in tokens: both reported.
  const auto rl = reasoning_length(gemm, 2);
  EXPECT_EQ(rl.unit, "tokens");
  EXPECT_DOUBLE_EQ(rl.by_turn[1].mean, 30);
}

TEST_F(Edge, TransitionsSkipPairsWithAnExcludedOrPendingTurn) {
  // traj 0: T->infra, infra->T skipped, T->incorrect counted; traj 1: compile_error->T counted,
  // T->pending skipped; traj 2: truncated->no_code->runtime_error->correct_no_target (3 pairs).
  const auto t = transitions(of("edge-a", "mha_fwd"));
  EXPECT_EQ(t.pairs, 5);
  EXPECT_EQ(t.skipped, 3);
  EXPECT_EQ((t.counts.at({"target_correct", "incorrect"})), 1);
  EXPECT_EQ((t.counts.at({"compile_error", "target_correct"})), 1);
  EXPECT_EQ((t.counts.at({"runtime_error", "correct_no_target"})), 1);
  EXPECT_EQ(t.from_totals.at("truncated"), 1);
}

TEST_F(Edge, ReasoningFallsBackToCharactersWhenSomeReplyReportsNoTokens) {
  // mha_fwd: only traj 0 turn 1 reports tokens. Turn 1 replies: 500, 200, 900 chars -> mean 533.3,
  // median 500; the infra_error and pending turns have no reply.
  const auto rl = reasoning_length(of("edge-a", "mha_fwd"), 4);
  EXPECT_EQ(rl.unit, "characters");
  EXPECT_EQ(rl.turns, 9);
  EXPECT_EQ(rl.tokens_reported, 1);
  EXPECT_EQ(rl.by_turn[0].turns, 3);
  EXPECT_NEAR(rl.by_turn[0].mean, 1600.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(rl.by_turn[0].median, 500);
  EXPECT_DOUBLE_EQ(rl.by_turn[0].max, 900);
  EXPECT_EQ(rl.by_turn[1].turns, 2);  // traj 0 turn 2 is infra_error
}

TEST_F(Edge, SplitsGroupHeldOutProblemsApart) {
  report::ReportSettings s;
  const auto r = report::build_metrics_report(set, s);
  const auto& cov = *r.table("coverage");
  const size_t bwd = test::row_where(cov, {{"problem", report::Value(std::string("mha_bwd"))}});
  EXPECT_EQ(report::value_text(cov.at(bwd, "split")), "held-out");
  EXPECT_EQ(std::get<long long>(cov.at(bwd, "trajectories")), 3);
  // Grouping by model only pools both problems and both archs of edge-a and edge-b.
  s.group_by = parse_group_by("model");
  const auto pooled = report::build_metrics_report(set, s);
  ASSERT_EQ(pooled.table("coverage")->rows.size(), 1u);
  EXPECT_EQ(report::value_text(pooled.table("coverage")->at(0, "problem")), "*");
  EXPECT_EQ(std::get<long long>(pooled.table("coverage")->at(0, "trajectories")), 7);
}

TEST(Budgets, EmptyOrBadBudgetsAreClearErrors) {
  EXPECT_EQ(report::parse_budgets("8,1,4,4"), (std::vector<int>{1, 4, 8}));
  EXPECT_THROW(report::parse_budgets(""), InputError);
  EXPECT_THROW(report::parse_budgets(" , "), InputError);
  try {
    report::parse_budgets("1,zero");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'zero'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(report::parse_budgets("0"), InputError);
  EXPECT_THROW(parse_group_by("arch,gpu"), InputError);
  EXPECT_THROW(parse_fastp_unit("kernel"), InputError);
}

TEST(Ablation, KnowledgeTableRowsAndTheComparisonOfTwoSettings) {
  // ablation.jsonl: mha_bwd, 4 trajectories x 2 turns per knowledge setting.
  //   params:               nothing correct                    -> 0 / 0
  //   params,ptx:           I T | T T | E E | I C              -> budget 1: 1/4, budget 2: 3/8 target, 4/8 correct
  //   params,ptx,contract:  T T | T I | I T | C T              -> budget 1: 2/4, budget 2: 5/8 target, 6/8 correct
  const auto set = load_fixture("ablation.jsonl");
  report::ReportSettings s;
  s.budgets = {1, 2};
  s.comparisons.push_back(parse_comparison("knowledge=params,ptx..knowledge=params,ptx,contract"));
  const auto r = report::build_metrics_report(set, s);
  std::vector<report::Grid> grids;  // the text view's knowledge ablation (Table 3)
  for (const auto& g : report::text_view(r).grids)
    if (g.title.rfind("Knowledge ablation", 0) == 0) grids.push_back(g);
  ASSERT_EQ(grids.size(), 1u);
  ASSERT_EQ(grids[0].rows.size(), 3u);
  EXPECT_EQ(grids[0].rows[0][0], "params");
  EXPECT_EQ(grids[0].rows[0][1], "\u2013 / \u2013 (\u2013 / \u2013)");  // zero, not n/a
  EXPECT_EQ(grids[0].rows[1][1], "25.0 / 37.5 (25.0 / 50.0)");
  EXPECT_EQ(grids[0].rows[2][1], "50.0 / 62.5 (75.0 / 75.0)");
  const auto& c = *r.table("comparison");
  const size_t row =
      test::row_where(c, {{"budget", report::Value(2LL)}, {"metric", report::Value(std::string("target_rate"))}});
  EXPECT_DOUBLE_EQ(test::num(c.at(row, "difference")), 0.25);
  // Newcombe: Wilson 3/8 = [0.1369, 0.6943], 5/8 = [0.3057, 0.8631];
  // lo = 0.25 - sqrt((0.625-0.3057)^2 + (0.6943-0.375)^2) = -0.2016, hi = 0.25 + sqrt(0.2381^2 + 0.2381^2) = 0.5867.
  EXPECT_NEAR(test::num(c.at(row, "diff_lo")), -0.2016, 2e-4);
  EXPECT_NEAR(test::num(c.at(row, "diff_hi")), 0.5867, 2e-4);
  EXPECT_EQ(c.at(row, "excludes_zero"), report::Value(false));
  // Best target speedup at budget 2: 0.35 (ptx) vs 0.5 (contract).
  const size_t sp = test::row_where(
      c, {{"budget", report::Value(2LL)}, {"metric", report::Value(std::string("best_target_speedup"))}});
  EXPECT_DOUBLE_EQ(test::num(c.at(sp, "a_value")), 0.35);
  EXPECT_DOUBLE_EQ(test::num(c.at(sp, "b_value")), 0.5);
  EXPECT_NEAR(test::num(c.at(sp, "difference")), 0.15, 1e-12);
  EXPECT_THROW(parse_comparison("only-one-side"), InputError);
  report::ReportSettings bad = s;
  bad.comparisons = {parse_comparison("no-such-run..ablation-ptx")};
  EXPECT_THROW(report::build_metrics_report(set, bad), InputError);
}

// Triton against CUDA-PTX side by side: --compare selects by language like by any dimension. The
// ablation fixture's contract runs relabelled as Triton give the contract-vs-ptx numbers above.
TEST(Comparison, LanguageSelectsTritonAgainstCudaPerProblem) {
  auto set = load_fixture("ablation.jsonl");
  for (auto& r : set.runs)
    if (r.knowledge == "params,ptx,contract") r.language = "triton";
  for (auto& t : set.turns)
    if (t.knowledge == "params,ptx,contract") t.language = "triton";
  report::ReportSettings s;
  s.budgets = {1, 2};
  s.comparisons.push_back(parse_comparison("language=cuda+knowledge=params,ptx..language=triton"));
  const auto r = report::build_metrics_report(set, s);
  const auto& c = *r.table("comparison");
  const size_t row =
      test::row_where(c, {{"budget", report::Value(2LL)}, {"metric", report::Value(std::string("target_rate"))}});
  EXPECT_EQ(c.at(row, "problem"), report::Value(std::string("mha_bwd")));
  EXPECT_DOUBLE_EQ(test::num(c.at(row, "difference")), 0.25);
  EXPECT_EQ(r.meta["group_by"][0], "arch");
  EXPECT_TRUE(r.meta.contains("group_by_note")) << "two languages in the input: grouped by language too";
}

}  // namespace

// Runs with repair notes are their own knowledge setting, so the knowledge ablation table compares
// the notes conditions side by side (the paper's Table 4).
TEST(KnowledgeCondition, RepairNotesNameTheirCondition) {
  using ptxbench::json;
  using ptxbench::metrics::knowledge_condition;
  EXPECT_EQ(knowledge_condition("params,ptx,contract", json::object()), "params,ptx,contract");
  EXPECT_EQ(knowledge_condition("params,ptx,contract", json{{"repair_notes", {{"source", ""}}}}),
            "params,ptx,contract");
  EXPECT_EQ(knowledge_condition("params", json{{"repair_notes", {{"source", "s1-abc"}, {"with_fixed_kernel", false}}}}),
            "params+notes");
  EXPECT_EQ(
      knowledge_condition(
          "none", json{{"repair_notes", {{"source", "f.jsonl"}, {"with_fixed_kernel", true}, {"same_problem", true}}}}),
      "none+notes+kernel@same-problem");
}

// A Triton run beside CUDA runs is never pooled with them: the groups split on the language even
// when --group-by does not name it, and the meta block says so.
TEST_F(Edge, TritonAndCudaRunsAreNeverPooled) {
  TurnSet mixed = set;
  for (auto& r : mixed.runs)
    if (r.id == "edge-b") r.language = "triton";
  for (auto& t : mixed.turns)
    if (t.run == "edge-b") t.language = "triton";
  report::ReportSettings s;
  s.group_by = parse_group_by("problem");
  const report::Report r = report::build_metrics_report(mixed, s);
  EXPECT_EQ(r.meta["group_by"], json({"language", "problem"}));
  EXPECT_TRUE(r.meta.contains("group_by_note"));
  const report::Table* cov = r.table("coverage");
  ASSERT_NE(cov, nullptr);
  std::set<std::string> labels;
  for (size_t i = 0; i < cov->rows.size(); ++i) labels.insert(to_json(*cov)["rows"][i]["group"].get<std::string>());
  EXPECT_TRUE(labels.count("triton / gemm")) << to_json(*cov).dump();
  EXPECT_TRUE(labels.count("cuda / mha_fwd")) << to_json(*cov).dump();
  // One language only: the grouping is as asked.
  const report::Report same = report::build_metrics_report(set, s);
  EXPECT_EQ(same.meta["group_by"], json({"problem"}));
  EXPECT_FALSE(same.meta.contains("group_by_note"));
}

// --target seen: the target metrics read the paper's looser flag; the default is the strict one.
TEST_F(Edge, TargetSeenIsTheLooserFlagOnlyWhenAsked) {
  TurnSet loose = set;
  int changed = 0;
  for (auto& t : loose.turns)
    if (t.correct() && !t.stored.target_executed.value_or(false)) t.target_seen = true, ++changed;
  ASSERT_GT(changed, 0) << "the fixture needs a correct turn without the strict flag";
  report::ReportSettings s;
  s.group_by = parse_group_by("run");
  auto target_rate_of = [&](const report::Report& r) {
    const report::Table* table = r.table("correctness");
    EXPECT_NE(table, nullptr);
    if (!table) return 0.0;
    const json t = to_json(*table);
    double sum = 0;
    for (const auto& row : t["rows"])
      if (row.contains("target_correct") && row["target_correct"].is_number())
        sum += row["target_correct"].get<double>();
    return sum;
  };
  const report::Report strict = report::build_metrics_report(loose, s);
  s.target_seen = true;
  const report::Report paper = report::build_metrics_report(loose, s);
  EXPECT_GT(target_rate_of(paper), target_rate_of(strict));
  EXPECT_NE(paper.meta["target_flag"], strict.meta["target_flag"]);
  EXPECT_TRUE(paper.meta["target_flag"].get<std::string>().starts_with("target_seen"));
}

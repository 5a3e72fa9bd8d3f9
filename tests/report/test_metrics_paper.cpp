// A fixture shaped like the paper's: 12 trajectories x 8 turns of GEMM (tests/fixtures/report/
// paper_12x8.jsonl). Every number below is computed by hand from this table of states
// (T = target-correct, C = correct without targets, U = correct with target execution unknown,
// I = incorrect, E = compile_error, R = runtime_error, S = sanitizer_error, N = no_code):
//
//   traj  turn 1 2 3 4 5 6 7 8     speedups (geomean) of correct turns: 0.5 unless listed
//     0        T T T T T T T T
//     1        T T T T I T T T
//     2        T T E T T I T T     t1 T 0.770
//     3        T I T T C T I T     t5 C 0.4
//     4        E T T T T I T T
//     5        I T T T T U I T     t3 T 0.968, t6 U 1.2
//     6        E E T T T T I T
//     7        E T T I I T T I
//     8        E R T I T I T I     t7 T 0.976
//     9        S T E T I T I C     t8 C 1.5
//    10        N C T T I C C I     t2 C 1.020, t6 C 0.3, t7 C 0.3
//    11        E E I I I I I I
//   T per turn:      4 7 9 9 6 6 6 7
//   T|C|U per turn:  4 8 9 9 7 8 7 8
//
// Target-instruction turn correctness: budget 1: 4/12 = 33.3%; budget 4: (4+7+9+9)/48 = 29/48 =
// 60.4%; budget 8: (29+6+6+6+7)/96 = 54/96 = 56.2%: the paper's figures.
// Unrestricted: 4/12 = 33.3%, (4+8+9+9)/48 = 30/48 = 62.5%, (30+7+8+7+8)/96 = 60/96 = 62.5%.
// Best target speedup: budget 1: 0.770 (traj 2 t1); 4: 0.968 (traj 5 t3); 8: 0.976 (traj 8 t7).
// Best speedup (any correct): 0.770; 1.020 (traj 10 t2); 1.5 (traj 9 t8).
#include <gtest/gtest.h>

#include "fixtures.h"
#include "metrics/best_speedup.h"
#include "metrics/fast_p.h"
#include "metrics/transitions.h"
#include "metrics/turn_correctness.h"
#include "report/metrics_report.h"

using namespace ptxbench;
using namespace ptxbench::metrics;
using ptxbench::test::load_fixture;

namespace {

struct Paper : ::testing::Test {
  TurnSet set = load_fixture("paper_12x8.jsonl");
  std::vector<Trajectory> trajectories = index_trajectories(set);
  std::vector<const Trajectory*> all() const {
    std::vector<const Trajectory*> v;
    for (const auto& t : trajectories) v.push_back(&t);
    return v;
  }
};

TEST_F(Paper, TargetInstructionTurnCorrectnessMatchesThePapersDenominators) {
  ASSERT_EQ(trajectories.size(), 12u);
  const auto b1 = turn_correctness(all(), 1), b4 = turn_correctness(all(), 4), b8 = turn_correctness(all(), 8);
  EXPECT_EQ(b1.target_correct.k, 4);
  EXPECT_EQ(b1.target_correct.n, 12);
  EXPECT_EQ(b4.target_correct.k, 29);
  EXPECT_EQ(b4.target_correct.n, 48);
  EXPECT_EQ(b8.target_correct.k, 54);
  EXPECT_EQ(b8.target_correct.n, 96);
  EXPECT_NEAR(*b1.target_correct.value(), 0.333, 5e-4);
  EXPECT_NEAR(*b4.target_correct.value(), 0.604, 5e-4);
  EXPECT_NEAR(*b8.target_correct.value(), 0.5625, 1e-12);
  EXPECT_EQ(b1.correct.k, 4);
  EXPECT_EQ(b4.correct.k, 30);
  EXPECT_EQ(b8.correct.k, 60);
  // U (traj 5 turn 6) is correct but not target-correct, and counted apart.
  EXPECT_EQ(b8.correct_target_unknown, 1);
  EXPECT_EQ(b4.correct_target_unknown, 0);
  EXPECT_EQ(b8.missing, 0);
  EXPECT_EQ(b8.excluded_infra + b8.excluded_not_run, 0);
}

TEST_F(Paper, WilsonIntervalOfFourOfTwelve) {
  // p = 1/3, n = 12, z = 1.96: centre (p + z^2/2n) / (1 + z^2/n) = 0.49340 / 1.32013, half-width
  // z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n) = 0.31106 / 1.32013: [0.1381, 0.6094].
  const auto i = turn_correctness(all(), 1).target_correct.wilson();
  ASSERT_TRUE(i);
  EXPECT_NEAR(i->lo, 0.1381, 1e-4);
  EXPECT_NEAR(i->hi, 0.6094, 1e-4);
}

TEST_F(Paper, BestSpeedupsAndWhereTheyAre) {
  const BootstrapSettings bs;
  const double want_target[] = {0.770, 0.968, 0.976}, want_any[] = {0.770, 1.020, 1.5};
  const int target_traj[] = {2, 5, 8}, target_turn[] = {1, 3, 7}, any_traj[] = {2, 10, 9}, any_turn[] = {1, 2, 8};
  const int budgets[] = {1, 4, 8};
  for (int i = 0; i < 3; ++i) {
    const auto t = best_speedup(all(), budgets[i], true, bs, "paper");
    const auto a = best_speedup(all(), budgets[i], false, bs, "paper");
    ASSERT_TRUE(t.value && a.value) << budgets[i];
    EXPECT_DOUBLE_EQ(*t.value, want_target[i]);
    EXPECT_EQ(t.where->id, target_traj[i]);
    EXPECT_EQ(t.turn, target_turn[i]);
    EXPECT_DOUBLE_EQ(*a.value, want_any[i]);
    EXPECT_EQ(a.where->id, any_traj[i]);
    EXPECT_EQ(a.turn, any_turn[i]);
    // The bootstrap's maximum can never exceed the observed best, and its top reaches it here
    // (the best trajectory is drawn in most resamples of 12).
    EXPECT_LE(t.interval->hi, *t.value);
    EXPECT_DOUBLE_EQ(t.interval->hi, *t.value);
  }
  // Budget 1: 4 trajectories have a target kernel; 3 of 4 score 0.5 and one 0.770, 8 score 0:
  // a resample has no kernel with probability (8/12)^12 = 0.77%, below 2.5%, so the low end is 0.5.
  EXPECT_DOUBLE_EQ(best_speedup(all(), 1, true, bs, "paper").interval->lo, 0.5);
}

TEST_F(Paper, FastPPerTrajectoryAndPerTask) {
  const auto grid = fastp_grid(1.5);
  auto at = [&](const FastpCurve& c, double p) {
    for (const auto& pt : c.points)
      if (std::abs(pt.p - p) < 1e-9) return pt.rate;
    throw std::runtime_error("no point");
  };
  // Budget 8, target-correct best per trajectory: 0.770 (2), 0.968 (5), 0.976 (8), 0.5 for the
  // other 8 with a T, none for traj 11. fast_p counts speedup > p strictly.
  const auto inst = fast_p(all(), 8, true, FastpUnit::trajectory, grid);
  EXPECT_EQ(at(inst, 0.0).k, 11);
  EXPECT_EQ(at(inst, 0.0).n, 12);
  EXPECT_EQ(at(inst, 0.5).k, 3);
  EXPECT_EQ(at(inst, 0.8).k, 2);
  EXPECT_EQ(at(inst, 1.0).k, 0);
  // Any correct: traj 9 1.5, traj 5 1.2, traj 10 1.020 beat 1.0; with traj 2 and 8 above 0.5.
  const auto any = fast_p(all(), 8, false, FastpUnit::trajectory, grid);
  EXPECT_EQ(at(any, 1.0).k, 3);
  EXPECT_EQ(at(any, 0.5).k, 5);
  EXPECT_EQ(at(any, 1.45).k, 1);
  EXPECT_EQ(at(any, 1.5).k, 0);
  // KernelBench's per-task unit: one task (gemm), its best target kernel 0.976.
  const auto task = fast_p(all(), 8, true, FastpUnit::task, grid);
  EXPECT_EQ(at(task, 0.95).n, 1);
  EXPECT_EQ(at(task, 0.95).k, 1);
  EXPECT_EQ(at(task, 1.0).k, 0);
}

TEST_F(Paper, TargetCorrectStaysTargetCorrectTwentyNineTimes) {
  // T -> T pairs per row: 7, 5, 3, 1, 4, 3, 3, 2, 0, 0, 1, 0 = 29; 12 x 7 = 84 pairs in all.
  const auto t = transitions(all());
  EXPECT_EQ(t.pairs, 84);
  EXPECT_EQ(t.skipped, 0);
  EXPECT_EQ((t.counts.at({"target_correct", "target_correct"})), 29);
  // E -> T: rows 4 (t1), 6 (t2), 7 (t1) = 3 ... and row 2 (t3 -> t4) = 4; row 9 (t3 -> t4) = 5.
  EXPECT_EQ((t.counts.at({"compile_error", "target_correct"})), 5);
  EXPECT_EQ((t.counts.at({"no_code", "correct_no_target"})), 1);
  EXPECT_EQ((t.counts.at({"correct_target_unknown", "incorrect"})), 1);
}

TEST_F(Paper, TheReportsCellsReadLikeThePapers) {
  report::ReportSettings s;
  const auto r = report::build_metrics_report(set, s);
  const auto& c = *r.table("correctness");
  const size_t row = test::row_where(c, {{"budget", report::Value(8LL)}});
  EXPECT_EQ(std::get<long long>(c.at(row, "turns")), 96);
  EXPECT_EQ(std::get<long long>(c.at(row, "target_correct")), 54);
  const auto& b = *r.table("best_speedup");
  EXPECT_DOUBLE_EQ(test::num(b.at(test::row_where(b, {{"budget", report::Value(4LL)}}), "best_target_speedup")), 0.968);
}

}  // namespace

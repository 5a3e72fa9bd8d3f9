// Which turns become items, and why the others do not: counts computed by hand for small runs.
#include <gtest/gtest.h>

#include "fixit/selection.h"
#include "fixit_fixtures.h"

using namespace ptxbench;
using namespace ptxbench::fixit;
using test::turn;

namespace {

Recipe recipe(Template t = Template::fixit) {
  Recipe r;
  r.name = "t";
  r.template_kind = t;
  r.suite = "4ops";
  if (t == Template::fixit)
    r.classes = {"compile_error", "forbidden", "runtime_error", "sanitizer_error", "incorrect", "correct_no_target"};
  return r;
}

const SuiteSplits kSuite{"4ops", {{"mha_fwd", "train"}, {"mha_bwd", "train"}, {"gemm", "held-out"}}};

std::map<std::string, int> statuses(const Selection& s) {
  std::map<std::string, int> m;
  for (const auto& i : s.items) ++m[i.status];
  return m;
}

TEST(Selection, FailingTurnsOfTheSuiteBecomeItemsWithTheirLaterFixes) {
  std::vector<SourceTurn> turns = {
      turn("r", "mha_fwd", 0, 0, "compile_error", "k0"), turn("r", "mha_fwd", 0, 1, "incorrect", "k1"),
      turn("r", "mha_fwd", 0, 2, "correct", "k2"),       turn("r", "mha_fwd", 0, 3, "correct", "k3", false),
      turn("r", "mha_bwd", 0, 0, "incorrect", "k4"),     turn("r", "mha_bwd", 0, 1, "incorrect", "k5")};
  const Selection s = select_items(turns, recipe(), kSuite, {});
  ASSERT_EQ(s.items.size(), 5u);  // 2 + correct_no_target (k3) + 2; k2 is no failure
  EXPECT_EQ(s.not_items.at("no_failure"), 1);
  const Item* k0 = nullptr;
  for (const auto& i : s.items)
    if (i.turn->candidate == "k0") k0 = &i;
  ASSERT_TRUE(k0);
  EXPECT_EQ(k0->error->name, "compile_error");
  ASSERT_EQ(k0->later.size(), 1u);  // k2 fixes it; k3 is correct but executes no target
  EXPECT_EQ(k0->later[0]->candidate, "k2");
  EXPECT_EQ(k0->split, "train");
  EXPECT_EQ(statuses(s).at("selected"), 5);
}

TEST(Selection, HeldOutProblemsAreRefusedAndSaySoOthersAreOutsideTheRecipe) {
  std::vector<SourceTurn> turns = {turn("r", "gemm", 0, 0, "incorrect", "g0"),
                                   turn("r", "gqa_fwd", 0, 0, "incorrect", "q0"),
                                   turn("r", "mha_fwd", 0, 0, "incorrect", "m0")};
  const Selection s = select_items(turns, recipe(), kSuite, {});
  ASSERT_EQ(s.items.size(), 3u);
  for (const auto& i : s.items) {
    if (i.problem == "gemm") {
      EXPECT_EQ(i.status, "refused");
      EXPECT_NE(i.reason.find("held_out: suite 4ops holds problem gemm out"), std::string::npos) << i.reason;
      EXPECT_EQ(i.split, "held-out");
    } else if (i.problem == "gqa_fwd") {
      EXPECT_EQ(i.status, "skipped");
      EXPECT_NE(i.reason.find("outside_recipe"), std::string::npos) << i.reason;
    } else {
      EXPECT_EQ(i.status, "selected");
    }
  }
}

TEST(Selection, DuplicatesByNormalizedKernelAndPerTrajectoryLimit) {
  std::vector<SourceTurn> turns = {turn("r", "mha_fwd", 0, 0, "incorrect", "int x;   // a"),
                                   turn("r", "mha_fwd", 1, 0, "incorrect", "int  x; /* b */"),  // the same kernel
                                   turn("r", "mha_fwd", 2, 0, "incorrect", "k-a"),
                                   turn("r", "mha_fwd", 2, 1, "incorrect", "k-b"),
                                   turn("r", "mha_fwd", 2, 2, "compile_error", "k-c")};
  Recipe r = recipe();
  r.per_trajectory = 2;
  const Selection s = select_items(turns, r, kSuite, {});
  std::map<std::string, std::string> why;
  for (const auto& i : s.items) why[i.turn->candidate] = i.status + " " + i.reason.substr(0, i.reason.find(':'));
  EXPECT_EQ(why["int x;   // a"], "selected ");
  EXPECT_EQ(why["int  x; /* b */"], "skipped duplicate");
  EXPECT_EQ(why["k-a"], "selected ");
  EXPECT_EQ(why["k-b"], "selected ");
  EXPECT_EQ(why["k-c"], "skipped per_trajectory");
}

TEST(Selection, ClassesOutsideTheRecipeAreNoItemsAndCapsCutWithReasons) {
  std::vector<SourceTurn> turns;
  for (int t = 0; t < 6; ++t)
    turns.push_back(turn("r", "mha_fwd", t, 0, t < 4 ? "incorrect" : "compile_error", "k" + std::to_string(t)));
  turns.push_back(turn("r", "mha_fwd", 9, 0, "correct", "slow", true, 0.2));
  Recipe r = recipe();
  r.classes = {"incorrect", "compile_error"};
  r.fix.slow_below = 0.5;
  r.caps["incorrect"] = 3;
  const Selection s = select_items(turns, r, kSuite, {});
  EXPECT_EQ(s.not_items.at("class_not_in_recipe"), 1);  // the slow one: correct_slow is not in the recipe
  const auto st = statuses(s);
  EXPECT_EQ(st.at("selected"), 5);  // 3 incorrect + 2 compile errors
  EXPECT_EQ(st.at("skipped"), 1);
  for (const auto& i : s.items) {
    if (i.status == "skipped") {
      EXPECT_EQ(i.reason, "capped: class cap 3 (incorrect)");
    }
  }
}

TEST(Selection, PreBalanceTakesSignaturesRoundRobinUpToTheProblemCap) {
  std::vector<SourceTurn> turns;
  // 5 incorrect (one signature) and 2 compile errors (another) in mha_fwd; cap 4 per problem.
  for (int t = 0; t < 5; ++t) turns.push_back(turn("r", "mha_fwd", t, 0, "incorrect", "i" + std::to_string(t)));
  for (int t = 5; t < 7; ++t) turns.push_back(turn("r", "mha_fwd", t, 0, "compile_error", "c" + std::to_string(t)));
  Recipe r = recipe();
  r.balance = Balance::pre;
  r.per_problem = 4;
  const Selection s = select_items(turns, r, kSuite, {});
  int incorrect = 0, compile = 0, cut = 0;
  for (const auto& i : s.items) {
    if (i.status != "selected") {
      ++cut;
      EXPECT_EQ(i.reason, "capped (pre-balance): problem cap 4 (mha_fwd)");
      continue;
    }
    (i.error->name == "incorrect" ? incorrect : compile)++;
  }
  // Round-robin: i, c, i, c, then i... -> 2 and 2 of the 4 kept.
  EXPECT_EQ(incorrect, 2);
  EXPECT_EQ(compile, 2);
  EXPECT_EQ(cut, 3);
  // Seeded: the same seed picks the same items.
  const Selection again = select_items(turns, r, kSuite, {});
  for (size_t i = 0; i < s.items.size(); ++i) EXPECT_EQ(s.items[i].status, again.items[i].status);
}

TEST(Selection, KernelGenTakesTargetCorrectTurns) {
  std::vector<SourceTurn> turns = {
      turn("r", "mha_fwd", 0, 0, "incorrect", "a"), turn("r", "mha_fwd", 0, 1, "correct", "b"),
      turn("r", "mha_fwd", 1, 0, "correct", "c", false), turn("r", "gemm", 0, 0, "correct", "d")};
  const Selection s = select_items(turns, recipe(Template::kernelgen), kSuite, {});
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(s.items[0].turn->candidate, "d");
  EXPECT_EQ(s.items[0].status, "refused");
  EXPECT_EQ(s.items[1].turn->candidate, "b");
  EXPECT_EQ(s.items[1].status, "selected");
  EXPECT_EQ(s.not_items.at("not_a_kernelgen_kernel"), 2);
}

TEST(Selection, TurnsWithoutAJudgedKernelAreCountedNotItems) {
  auto no_code = turn("r", "mha_fwd", 0, 0, "incorrect", "");
  no_code.candidate.clear();
  no_code.evaluation.reset();
  auto infra = turn("r", "mha_fwd", 0, 1, "incorrect", "x");
  infra.evaluation->verdict = Verdict::infra_error;
  auto judging = turn("r", "mha_fwd", 0, 2, "incorrect", "y");
  judging.phase = "judging";
  const Selection s = select_items({no_code, infra, judging}, recipe(), kSuite, {});
  EXPECT_TRUE(s.items.empty());
  EXPECT_EQ(s.not_items.at("no_kernel"), 1);
  EXPECT_EQ(s.not_items.at("not_judged"), 2);
  EXPECT_EQ(s.turns_read, 3);
}

}  // namespace

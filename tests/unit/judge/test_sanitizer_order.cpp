// Where the sanitizers stand among the GPU stages (EvalOptions::sanitizer_order): the units' order
// per setting, the record's stages in one order whatever the setting, the eval worker's outcome read
// from its run, the sanitizers each outcome leaves, and, over every combination of what a candidate
// does, the verdict each order gives held against the old order's (the precedence kept, and exactly
// where it is not).
#include <gtest/gtest.h>

#include <csignal>

#include "judge/stages/pipeline.h"
#include "judge/stages/sanitizer_order.h"
#include "judge/stages/stage_results.h"
#include "judge/stages/verdict_decision.h"
#include "unit/judge/worker_run_with.h"

using namespace ptxbench;

namespace {

using test::run_with;

WorkerRun passed_run() {
  return run_with({{{"name", "integrity"}, {"status", "ok"}},
                   {{"name", "stream_discipline"}, {"status", "ok"}},
                   {{"name", "correctness"}, {"status", "ok"}},
                   {{"name", "target_run"}, {"status", "ok"}}});
}

// The record stages (named units) in the order a list runs them.
std::vector<std::string> record_stages(SanitizerOrder order) {
  std::vector<std::string> out;
  for (const auto& u : gpu_stage_units(order))
    if (u == "sanitize" || u == "sanitize_after_eval") out.push_back("sanitize");
    else if (u != "smoke" && u != "eval_worker" && u != "timed_worker") out.push_back(u);
  return out;
}

}  // namespace

TEST(SanitizerOrder, NamesRoundTrip) {
  for (auto o : {SanitizerOrder::first, SanitizerOrder::after_correctness, SanitizerOrder::only_if_correct})
    EXPECT_EQ(sanitizer_order_from_string(to_string(o)), o);
  EXPECT_FALSE(sanitizer_order_from_string("last").has_value());
  EXPECT_EQ(EvalOptions{}.sanitizer_order, SanitizerOrder::after_correctness);
}

TEST(SanitizerOrder, FirstRunsSmokeAndSanitizersBeforeTheEvalWorker) {
  EXPECT_EQ(gpu_stage_units(SanitizerOrder::first),
            (std::vector<std::string>{"smoke", "sanitize", "eval_worker", "timed_worker", "integrity",
                                      "stream_discipline", "correctness", "target_run", "timing"}));
}

TEST(SanitizerOrder, AfterCorrectnessRunsTheEvalWorkerFirstAndTimesOnlyAfterTheSanitizers) {
  for (auto o : {SanitizerOrder::after_correctness, SanitizerOrder::only_if_correct})
    EXPECT_EQ(gpu_stage_units(o),
              (std::vector<std::string>{"eval_worker", "sanitize_after_eval", "timed_worker", "integrity",
                                        "stream_discipline", "correctness", "target_run", "timing"}));
}

// The first failed stage decides (verdict_decision.h): the record keeps one order in every case.
TEST(SanitizerOrder, TheRecordsStagesComeInOneOrderWhateverTheSetting) {
  const auto first = record_stages(SanitizerOrder::first);
  EXPECT_EQ(record_stages(SanitizerOrder::after_correctness), first);
  EXPECT_EQ(record_stages(SanitizerOrder::only_if_correct), first);
}

TEST(SanitizerOrder, TheEvalWorkersOutcomeIsReadFromItsRun) {
  EXPECT_EQ(eval_outcome_of(passed_run()), EvalOutcome::passed);
  // A counting tool's failure is not the candidate's (timed_split.h): it can still be correct.
  EXPECT_EQ(eval_outcome_of(run_with({{{"name", "integrity"}, {"status", "ok"}},
                                      {{"name", "correctness"}, {"status", "ok"}},
                                      {{"name", "target_run"}, {"status", "failed"}, {"tool_failure", true}}})),
            EvalOutcome::passed);
  EXPECT_EQ(eval_outcome_of(run_with({{{"name", "integrity"}, {"status", "ok"}},
                                      {{"name", "correctness"}, {"status", "failed"}, {"verdict", "incorrect"}}})),
            EvalOutcome::failed);
  EXPECT_EQ(eval_outcome_of(run_with({{{"name", "integrity"}, {"status", "failed"}, {"verdict", "forbidden"}}})),
            EvalOutcome::failed);

  WorkerRun crashed = run_with({}, false);
  crashed.process.term_signal = SIGSEGV;
  EXPECT_EQ(eval_outcome_of(crashed), EvalOutcome::failed);

  WorkerRun watchdog = run_with({}, false);
  watchdog.fatal =
      json{{"verdict", "runtime_error"}, {"message", "timeout: a call did not finish within 10.0 s (hang?)"}};
  EXPECT_EQ(eval_outcome_of(watchdog), EvalOutcome::hung);

  WorkerRun deadline = run_with({}, false);
  deadline.process.timed_out = true;
  deadline.process.term_signal = SIGKILL;
  EXPECT_EQ(eval_outcome_of(deadline), EvalOutcome::hung);

  WorkerRun cuda_error = run_with({}, false);
  cuda_error.fatal = json{{"verdict", "cuda_error"}, {"message", "an illegal memory access was encountered"}};
  EXPECT_EQ(eval_outcome_of(cuda_error), EvalOutcome::failed);

  WorkerRun harness = run_with({}, false);
  harness.fatal = json{{"verdict", "infra_error"}, {"message", "cuDNN plan failed"}};
  EXPECT_EQ(eval_outcome_of(harness), EvalOutcome::harness_fault);

  WorkerRun outside_kill = run_with({}, false);
  outside_kill.process.term_signal = SIGKILL;
  EXPECT_EQ(eval_outcome_of(outside_kill), EvalOutcome::harness_fault);

  WorkerRun tampered = passed_run();
  tampered.tampered = "a forged MAC";
  EXPECT_EQ(eval_outcome_of(tampered), EvalOutcome::failed);
}

TEST(SanitizerOrder, APassingCandidateGetsAllThreeAFailingOneMemcheckOrNone) {
  using C = std::vector<std::string>;
  for (auto o : {SanitizerOrder::after_correctness, SanitizerOrder::only_if_correct}) {
    const auto passed = sanitizers_after_eval(o, EvalOutcome::passed);
    EXPECT_EQ(passed.checks, (C{"memcheck", "racecheck", "synccheck"}));
    EXPECT_EQ(passed.not_run, "");
    EXPECT_TRUE(sanitizers_after_eval(o, EvalOutcome::hung).checks.empty());
    EXPECT_TRUE(sanitizers_after_eval(o, EvalOutcome::harness_fault).checks.empty());
  }
  const auto failed = sanitizers_after_eval(SanitizerOrder::after_correctness, EvalOutcome::failed);
  EXPECT_EQ(failed.checks, C{"memcheck"});
  EXPECT_NE(failed.not_run.find("racecheck and synccheck not run"), std::string::npos) << failed.not_run;
  const auto lazy = sanitizers_after_eval(SanitizerOrder::only_if_correct, EvalOutcome::failed);
  EXPECT_TRUE(lazy.checks.empty());
  EXPECT_NE(lazy.not_run.find("cannot be correct"), std::string::npos) << lazy.not_run;
}

TEST(SanitizerOrder, AfterASanitizerFailureTheSmokeCallDecidesAsWhenItRanFirst) {
  const StageResult memcheck = failed_stage("sanitize", Verdict::sanitizer_error, "memcheck: 64 error(s)");
  const StageResult smoke =
      failed_stage("sanitize", Verdict::runtime_error, "before the sanitizers, a plain call failed");
  EXPECT_EQ(as_in_the_old_order(std::nullopt, memcheck).detail.value("verdict", ""), "sanitizer_error");
  const StageResult decided = as_in_the_old_order(smoke, memcheck);
  EXPECT_EQ(decided.detail.value("verdict", ""), "runtime_error");
  EXPECT_EQ(decided.message, smoke.message);
  EXPECT_EQ(decided.detail.value("sanitizers_found", ""), memcheck.message);
}

namespace {

// What a candidate does, as the stages see it: its plain call on the sanitize shape (the smoke
// call), each sanitizer on that shape, and its eval worker. A plain call that fails there fails
// under every sanitizer too (it runs the same call).
struct Behaviour {
  bool smoke_fails, memcheck, racecheck, synccheck;
  EvalOutcome eval;
  Verdict eval_verdict;  // when the eval worker failed or hung
};

bool sanitizer_fails(const Behaviour& b, const std::string& check) {
  return b.smoke_fails || (check == "memcheck" && b.memcheck) || (check == "racecheck" && b.racecheck) ||
         (check == "synccheck" && b.synccheck);
}

// The record each order makes, through the decision functions under test, then decide_verdict.
Verdict judged(SanitizerOrder order, const Behaviour& b) {
  EvaluationRecord r;
  const StageResult smoke_failure = failed_stage("sanitize", Verdict::runtime_error, "a plain call failed");
  auto eval_stages = [&] {
    if (b.eval == EvalOutcome::passed) r.add_stage({"correctness", StageStatus::ok, 0, "", json::object()});
    else r.add_stage(failed_stage("correctness", b.eval_verdict, "the eval worker failed"));
  };
  if (order == SanitizerOrder::first) {
    if (b.smoke_fails) r.add_stage(smoke_failure);
    else if (b.memcheck || b.racecheck || b.synccheck)
      r.add_stage(failed_stage("sanitize", Verdict::sanitizer_error, "found"));
    else eval_stages();
    return decide_verdict(r, nullptr);
  }
  const SanitizerPlan plan = sanitizers_after_eval(order, b.eval);
  bool failed = false;
  for (const auto& check : plan.checks) failed |= sanitizer_fails(b, check);
  if (failed) {
    const StageResult found = failed_stage("sanitize", Verdict::sanitizer_error, "found");
    r.add_stage(as_in_the_old_order(b.smoke_fails ? std::optional<StageResult>(smoke_failure) : std::nullopt, found));
  } else {
    eval_stages();
  }
  return decide_verdict(r, nullptr);
}

}  // namespace

// Every combination of what a candidate can do: after_correctness gives the old order's verdict
// except for a candidate whose eval worker failed or hung and whose only sanitizer findings are
// racecheck's or synccheck's (not run for it) or, for one that hung, memcheck's; only_if_correct
// also gives up a memory error, and the smoke call's runtime error, of a candidate that failed.
TEST(SanitizerOrder, TheVerdictIsTheOldOrdersExceptWhereSaid) {
  int combinations = 0, after_differs = 0, lazy_differs = 0;
  for (int bits = 0; bits < 16; ++bits)
    for (auto eval : {EvalOutcome::passed, EvalOutcome::failed, EvalOutcome::hung})
      for (auto ev : {Verdict::incorrect, Verdict::forbidden, Verdict::runtime_error}) {
        if (eval == EvalOutcome::passed && ev != Verdict::incorrect) continue;  // one passing case per bits
        if (eval == EvalOutcome::hung && ev != Verdict::runtime_error) continue;
        const Behaviour b{bool(bits & 1), bool(bits & 2), bool(bits & 4), bool(bits & 8), eval, ev};
        // A call that hangs in the eval worker hangs on the sanitize shape too only if the smoke call
        // fails there; every combination is kept, the realistic and the not.
        ++combinations;
        const Verdict old = judged(SanitizerOrder::first, b);
        const Verdict after = judged(SanitizerOrder::after_correctness, b);
        const Verdict lazy = judged(SanitizerOrder::only_if_correct, b);
        const bool failed_eval = eval != EvalOutcome::passed;
        const bool only_race_or_sync = !b.smoke_fails && !b.memcheck && (b.racecheck || b.synccheck);
        const bool hung_with_findings =
            eval == EvalOutcome::hung && !b.smoke_fails && (b.memcheck || only_race_or_sync);
        const bool after_may_differ = (failed_eval && only_race_or_sync) || hung_with_findings;
        const bool lazy_may_differ = failed_eval && (b.smoke_fails || b.memcheck || b.racecheck || b.synccheck);
        SCOPED_TRACE(::testing::Message()
                     << "smoke fails " << b.smoke_fails << ", memcheck " << b.memcheck << ", racecheck " << b.racecheck
                     << ", synccheck " << b.synccheck << ", eval " << int(eval) << " " << to_string(ev));
        if (!after_may_differ) {
          EXPECT_EQ(after, old) << to_string(after) << " against " << to_string(old);
        }
        if (!lazy_may_differ) {
          EXPECT_EQ(lazy, old) << to_string(lazy) << " against " << to_string(old);
        }
        after_differs += after != old;
        lazy_differs += lazy != old;
        // Where they differ, the candidate fails either way: never correct for a failing one.
        if (old != Verdict::correct) {
          EXPECT_NE(after, Verdict::correct);
          EXPECT_NE(lazy, Verdict::correct);
        }
        // A smoke call that fails decides in every order (a runtime error stays one), unless the
        // eval worker hung first (then the candidate's verdict is that runtime error anyway).
        if (b.smoke_fails) {
          EXPECT_EQ(after, Verdict::runtime_error);
          if (eval != EvalOutcome::failed) {
            EXPECT_EQ(lazy, Verdict::runtime_error);
          }
        }
      }
  EXPECT_EQ(combinations, 16 * 5);
  EXPECT_GT(after_differs, 0);  // the documented cases exist and are counted, not hidden
  EXPECT_GT(lazy_differs, after_differs);
}

#include "report/metrics_report.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/error.h"
#include "metrics/correctness_by_turn.h"
#include "metrics/coverage.h"
#include "metrics/reasoning_length.h"
#include "metrics/transitions.h"
#include "metrics/turn_correctness.h"
#include "report/provenance.h"

namespace ptxbench::report {

using namespace metrics;

std::vector<int> parse_budgets(const std::string& text) {
  std::set<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) continue;
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 1) throw InputError("--budgets: '" + item + "' is not a turn budget (an integer >= 1)");
    out.insert(v);
  }
  if (out.empty()) throw InputError("--budgets: give at least one turn budget, e.g. 1,4,8");
  return {out.begin(), out.end()};
}

namespace {

const std::vector<Field>& group_fields() {
  static const std::vector<Field> f = {
      {"group", FieldType::string, "", "the group's label (its grouped dimensions)"},
      {"arch", FieldType::string, "", "target architecture (* = pooled)"},
      {"language", FieldType::string, "", "the candidates' language, cuda or triton (* = pooled)"},
      {"gpu", FieldType::string, "", "GPUs the group's turns ran on"},
      {"model", FieldType::string, "", "PROVIDER:MODEL (* = pooled)"},
      {"knowledge", FieldType::string, "", "prompt knowledge components (* = pooled)"},
      {"run", FieldType::string, "", "run id (* = pooled)"},
      {"split", FieldType::string, "", "train / held-out split (* = pooled; empty = none)"},
      {"problem", FieldType::string, "", "problem (* = pooled)"},
  };
  return f;
}

std::vector<Value> group_values(const Group& g) {
  return {g.label, g.value(Dim::arch), g.value(Dim::language), g.gpu, g.value(Dim::model), g.value(Dim::knowledge),
          g.value(Dim::run), g.value(Dim::split), g.value(Dim::problem)};
}

Table make_table(std::string name, std::string title, std::string description, std::vector<Field> extra, bool grouped = true) {
  Table t;
  t.name = std::move(name), t.title = std::move(title), t.description = std::move(description);
  if (grouped) t.fields = group_fields();
  for (auto& f : extra) t.fields.push_back(std::move(f));
  return t;
}

std::vector<Value> with_group(const Group& g, std::vector<Value> rest) {
  std::vector<Value> out = group_values(g);
  for (auto& x : rest) out.push_back(std::move(x));
  return out;
}

Value rate_value(const Rate& r) { return opt(r.value()); }
Value lo(const std::optional<Interval>& i) { return i ? Value(i->lo) : Value(); }
Value hi(const std::optional<Interval>& i) { return i ? Value(i->hi) : Value(); }
Value ll(long long v) { return Value(v); }

Table runs_table(const TurnSet& set) {
  Table t = make_table("runs", "Runs and their provenance", "One row per run read.",
                       {{"run", FieldType::string, "", "run id"},
                        {"model", FieldType::string, "", "PROVIDER:MODEL"},
                        {"arch", FieldType::string, "", "target architecture"},
                        {"gpu", FieldType::string, "", "GPU the run was judged on"},
                        {"knowledge", FieldType::string, "", "prompt knowledge components"},
                        {"suite", FieldType::string, "", "suite name, when the run names one"},
                        {"status", FieldType::string, "", "running, complete or stopped (as stored)"},
                        {"problems", FieldType::string, "", "the run's problems"},
                        {"trajectories", FieldType::integer, "per problem", "trajectory budget"},
                        {"turns", FieldType::integer, "per trajectory", "turn budget"},
                        {"harness_version", FieldType::string, "", "ptxbench version that ran it"},
                        {"harness_commit", FieldType::string, "", "git commit of that harness"},
                        {"harness_dirty", FieldType::string, "", "uncommitted changes in that build"},
                        {"nvcc", FieldType::string, "", "nvcc version candidates were built with"},
                        {"driver", FieldType::string, "", "GPU driver"},
                        {"seed_policy", FieldType::string, "", "how correctness and timing inputs were seeded"},
                        {"source", FieldType::string, "", "file or workspace it was read from"}},
                       false);
  for (const auto& r : set.runs) {
    const Provenance p = from_run_provenance(r.provenance);
    std::string problems;
    for (const auto& x : r.problems) problems += (problems.empty() ? "" : ",") + x;
    t.add({r.id, r.model, r.arch, r.gpu.empty() ? p.gpu : r.gpu, r.knowledge, r.suite, r.status, problems,
           ll(r.trajectories), ll(r.turns), p.harness_version, p.harness_commit, p.harness_dirty, p.nvcc, p.driver,
           p.seed_policy, r.source});
  }
  return t;
}

struct Tables {
  Table coverage = make_table(
      "coverage", "Coverage", "What each group's numbers rest on: finished and unfinished trajectories, excluded and missing turns.",
      {{"trajectories", FieldType::integer, "trajectories", "trajectories with at least one stored turn"},
       {"finished", FieldType::integer, "trajectories", "trajectories with every turn of their budget judged"},
       {"unfinished", FieldType::integer, "trajectories", "trajectories still missing turns"},
       {"turns_budget", FieldType::integer, "turns", "sum of the trajectories' turn budgets"},
       {"stored", FieldType::integer, "turns", "turns stored"},
       {"counted", FieldType::integer, "turns", "turns in the denominators (not excluded, not pending)"},
       {"excluded_infra_error", FieldType::integer, "turns", "infra_error / quota_exhausted turns (excluded)"},
       {"excluded_not_run", FieldType::integer, "turns", "not_run turns: no GPU stage ran (excluded)"},
       {"pending", FieldType::integer, "turns", "replies stored but not judged yet"},
       {"missing", FieldType::integer, "turns", "turns of the budget never stored"},
       {"transition_pairs_skipped", FieldType::integer, "pairs", "consecutive turns with an excluded or pending one: no transition"}});
  Table correctness = make_table(
      "correctness", "Turn correctness at turn budgets",
      "Of the counted turns 1..budget of every trajectory: correct, and target-instruction correct (correct with every target group executed).",
      {{"budget", FieldType::integer, "turns", "turn budget t"},
       {"trajectories", FieldType::integer, "trajectories", ""},
       {"expected_turns", FieldType::integer, "turns", "trajectories x budget"},
       {"turns", FieldType::integer, "turns", "counted turns 1..budget (the denominator)"},
       {"correct", FieldType::integer, "turns", "correct turns"},
       {"correct_rate", FieldType::number, "fraction", "correct / turns"},
       {"correct_lo", FieldType::number, "fraction", "95% Wilson interval, low"},
       {"correct_hi", FieldType::number, "fraction", "95% Wilson interval, high"},
       {"target_correct", FieldType::integer, "turns", "correct turns with every target group executed"},
       {"target_rate", FieldType::number, "fraction", "target_correct / turns"},
       {"target_lo", FieldType::number, "fraction", "95% Wilson interval, low"},
       {"target_hi", FieldType::number, "fraction", "95% Wilson interval, high"},
       {"correct_target_unknown", FieldType::integer, "turns", "correct turns whose target execution is unknown (not target-correct)"},
       {"excluded_infra_error", FieldType::integer, "turns", "infra_error / quota_exhausted turns 1..budget (excluded)"},
       {"excluded_not_run", FieldType::integer, "turns", "not_run turns 1..budget (excluded)"},
       {"missing", FieldType::integer, "turns", "expected_turns - turns - excluded: not stored yet or pending"},
       {"beyond_run_budget", FieldType::boolean, "", "the budget exceeds the turns a run was given"}});
  Table best = make_table(
      "best_speedup", "Best speedup within turn budgets",
      "Highest library-relative geomean speedup among the (target-)correct turns 1..budget of any trajectory; 95% percentile bootstrap over trajectories.",
      {{"budget", FieldType::integer, "turns", "turn budget t"},
       {"trajectories", FieldType::integer, "trajectories", ""},
       {"best_target_speedup", FieldType::number, "x (library time / candidate time)", "among target-correct turns; null: none"},
       {"best_target_lo", FieldType::number, "x", "95% bootstrap interval, low"},
       {"best_target_hi", FieldType::number, "x", "95% bootstrap interval, high"},
       {"best_target_run", FieldType::string, "", "where the best target-correct kernel is: run"},
       {"best_target_trajectory", FieldType::integer, "", "... trajectory"},
       {"best_target_turn", FieldType::integer, "", "... turn (ties: earliest turn, then first trajectory)"},
       {"trajectories_with_target_kernel", FieldType::integer, "trajectories", "trajectories with a target-correct timed turn 1..budget"},
       {"best_speedup", FieldType::number, "x (library time / candidate time)", "among correct turns; null: none"},
       {"best_lo", FieldType::number, "x", "95% bootstrap interval, low"},
       {"best_hi", FieldType::number, "x", "95% bootstrap interval, high"},
       {"best_run", FieldType::string, "", "where the best correct kernel is: run"},
       {"best_trajectory", FieldType::integer, "", "... trajectory"},
       {"best_turn", FieldType::integer, "", "... turn"},
       {"trajectories_with_kernel", FieldType::integer, "trajectories", "trajectories with a correct timed turn 1..budget"}});
  Table fastp = make_table(
      "fast_p", "fast_p and FastpInst. curves",
      "Share of units whose best kernel within the budget is correct (fastp_inst: target-correct) with geomean speedup > p.",
      {{"unit", FieldType::string, "", "trajectory: each trajectory's best kernel; task: each problem's best kernel (KernelBench)"},
       {"budget", FieldType::integer, "turns", "turn budget t"},
       {"metric", FieldType::string, "", "fast_p or fastp_inst"},
       {"p", FieldType::number, "x", "speedup threshold (strictly greater)"},
       {"units", FieldType::integer, "units", "trajectories (or tasks) with a counted turn 1..budget"},
       {"count", FieldType::integer, "units", "units faster than p"},
       {"rate", FieldType::number, "fraction", "count / units"},
       {"lo", FieldType::number, "fraction", "95% Wilson interval, low"},
       {"hi", FieldType::number, "fraction", "95% Wilson interval, high"}});
  Table by_turn = make_table(
      "correctness_by_turn", "Correctness by turn number", "Of the counted turns numbered k (not cumulative): correct and target-correct.",
      {{"turn", FieldType::integer, "", "turn number k"},
       {"turns", FieldType::integer, "turns", "counted turns numbered k"},
       {"correct", FieldType::integer, "turns", ""},
       {"correct_rate", FieldType::number, "fraction", ""},
       {"correct_lo", FieldType::number, "fraction", "95% Wilson"},
       {"correct_hi", FieldType::number, "fraction", "95% Wilson"},
       {"target_correct", FieldType::integer, "turns", ""},
       {"target_rate", FieldType::number, "fraction", ""},
       {"target_lo", FieldType::number, "fraction", "95% Wilson"},
       {"target_hi", FieldType::number, "fraction", "95% Wilson"}});
  Table transitions = make_table(
      "transitions", "Error-state transitions", "Pairs of consecutive counted turns k -> k+1 of a trajectory, by state.",
      {{"from", FieldType::string, "", "state at turn k"},
       {"to", FieldType::string, "", "state at turn k+1"},
       {"count", FieldType::integer, "pairs", ""},
       {"share_of_from", FieldType::number, "fraction", "count / pairs leaving `from`"}});
  Table reasoning = make_table(
      "reasoning", "Reasoning length by turn number",
      "Over the turns with a model reply; tokens where the provider reported them for every such turn of the group, else characters.",
      {{"turn", FieldType::integer, "", "turn number k"},
       {"replies", FieldType::integer, "turns", "turns with a reply numbered k"},
       {"unit", FieldType::string, "", "tokens or characters"},
       {"tokens_reported", FieldType::integer, "turns", "replies of the group with reasoning tokens reported"},
       {"mean", FieldType::number, "unit", ""},
       {"median", FieldType::number, "unit", ""},
       {"max", FieldType::number, "unit", ""}});
  Table speedups = make_table(
      "speedups", "Speedup distribution", "The geomean speedup of every correct, timed turn.",
      {{"trajectory_run", FieldType::string, "", "run of the turn"},
       {"trajectory_problem", FieldType::string, "", "problem of the turn"},
       {"trajectory", FieldType::integer, "", ""},
       {"turn", FieldType::integer, "", ""},
       {"speedup", FieldType::number, "x (library time / candidate time)", "geomean over the benchmark shapes"},
       {"target_correct", FieldType::boolean, "", "every target group executed"}});
  Table trajectories = make_table(
      "trajectories", "Trajectories", "One row per trajectory: its states in turn order and its best kernels.",
      {{"trajectory_run", FieldType::string, "", "run"},
       {"trajectory_problem", FieldType::string, "", "problem"},
       {"trajectory", FieldType::integer, "", ""},
       {"turns_stored", FieldType::integer, "turns", ""},
       {"finished", FieldType::boolean, "", "every turn of the budget judged"},
       {"states", FieldType::string, "", "transition states of turns 1.., space-separated"},
       {"final_state", FieldType::string, "", "state of the last stored turn"},
       {"best_speedup", FieldType::number, "x", "best correct kernel over all its turns"},
       {"best_target_speedup", FieldType::number, "x", "best target-correct kernel over all its turns"}});
  Table turns = make_table(
      "turns", "Turns", "One row per stored turn.",
      {{"trajectory_run", FieldType::string, "", "run"},
       {"trajectory_problem", FieldType::string, "", "problem"},
       {"trajectory", FieldType::integer, "", ""},
       {"turn", FieldType::integer, "", "1-based"},
       {"state", FieldType::string, "", "verdict or provider state"},
       {"transition_state", FieldType::string, "", "state with correct split by target execution"},
       {"counted", FieldType::boolean, "", "in the denominators"},
       {"target_executed", FieldType::boolean, "", "null: unknown"},
       {"speedup_geomean", FieldType::number, "x", ""},
       {"reasoning_tokens", FieldType::integer, "tokens", "null: not reported"},
       {"reasoning_chars", FieldType::integer, "characters", ""},
       {"output_tokens", FieldType::integer, "tokens", "null: not reported"}});
};

}  // namespace

Report build_metrics_report(const TurnSet& set_in, const ReportSettings& s) {
  if (s.budgets.empty()) throw InputError("no turn budget given");
  // --target seen: the target metrics read the paper's looser flag (a copy; the input is unchanged).
  TurnSet seen_copy;
  if (s.target_seen) {
    seen_copy = set_in;
    for (auto& t : seen_copy.turns) t.target_executed = t.target_seen;
  }
  const TurnSet& set = s.target_seen ? seen_copy : set_in;
  if (s.bootstrap.resamples < 1) throw InputError("--bootstrap: give at least one resample");
  const auto trajectories = index_trajectories(set);
  // Triton and CUDA candidates are never pooled: with both in the input, the groups split on the
  // language even where --group-by does not name it (the meta block says so).
  metrics::GroupBy by = s.group_by;
  std::set<std::string> languages;
  for (const auto& run : set.runs) languages.insert(run.language);
  const bool split_language = languages.size() > 1 && !by.has(Dim::language);
  if (split_language) by = metrics::parse_group_by([&] {
    std::string text = "language";
    for (Dim d : s.group_by.dims) text += "," + std::string(to_string(d));
    return text;
  }());
  const auto groups = group_trajectories(trajectories, set, by);
  Report r;
  r.meta = {{"generator", s.generator},
            {"inputs", s.inputs},
            {"budgets", s.budgets},
            {"group_by", json::array()},
            {"fastp_unit", std::string(to_string(s.fastp_unit))},
            {"fastp_step", s.fastp_step},
            {"intervals",
             {{"rates", "Wilson score interval, 95%, treating turns as independent (turns of one trajectory are correlated: read it as optimistic)"},
              {"best_speedup", "percentile bootstrap over trajectories, 95%, " + std::to_string(s.bootstrap.resamples) +
                                   " resamples, seed " + std::to_string(s.bootstrap.seed) +
                                   " (mixed with the group's label); a resample with no qualifying kernel scores 0"},
              {"fast_p", "Wilson score interval, 95%, over units"},
              {"comparison_rates", "Newcombe hybrid score interval (method 10) of the difference, 95%"},
              {"comparison_speedups", "percentile bootstrap of the difference, 95%, each side resampled over its own trajectories"}}},
            {"bootstrap", {{"resamples", s.bootstrap.resamples}, {"seed", s.bootstrap.seed}}},
            {"rules",
             {{"counted", "a turn counts when it is stored, judged, and not infra_error, quota_exhausted or not_run"},
              {"budget", "budget t covers the turns numbered 1..t of each trajectory; excluded, pending and missing turns are in no denominator and are counted apart"},
              {"target_correct", "correct and target_executed true; unknown target execution is not target-correct"},
              {"reasoning_unit", "tokens when every reply of the group reports reasoning tokens, else characters"}}}};
  for (Dim d : by.dims) r.meta["group_by"].push_back(std::string(to_string(d)));
  r.meta["target_flag"] = s.target_seen ? "target_seen: some target instruction executed (the paper's flag)"
                                        : "target_executed: the target instructions did the problem's work (strict)";
  if (split_language) r.meta["group_by_note"] = "the input holds CUDA and Triton runs: grouped by language too";
  r.meta["transition_states"] = transition_state_order();

  r.add(runs_table(set));
  Tables t;
  const int max_budget = s.budgets.back();
  int max_turn = max_budget;
  for (const auto& run : set.runs) max_turn = std::max(max_turn, run.turns);
  for (const auto& tr : trajectories)
    if (!tr.turns.empty()) max_turn = std::max(max_turn, tr.turns.back()->turn);

  double max_speedup = 0;
  for (const auto& turn : set.turns)
    if (turn.correct() && turn.speedup_geomean) max_speedup = std::max(max_speedup, *turn.speedup_geomean);
  const auto grid = fastp_grid(max_speedup, s.fastp_step);

  for (const auto& g : groups) {
    const auto& trs = g.trajectories;
    const auto cov = coverage(trs);
    const auto tx = transitions(trs);
    t.coverage.add(with_group(g, {ll(cov.trajectories), ll(cov.finished), ll(cov.unfinished), ll(cov.turns_budget), ll(cov.stored),
                                  ll(cov.counted), ll(cov.excluded_infra), ll(cov.excluded_not_run), ll(cov.pending),
                                  ll(cov.missing), ll(tx.skipped)}));
    for (int b : s.budgets) {
      const auto c = turn_correctness(trs, b);
      t.correctness.add(with_group(
          g, {ll(b), ll(c.trajectories), ll(c.expected), ll(c.correct.n), ll(c.correct.k), rate_value(c.correct),
              lo(c.correct.wilson()), hi(c.correct.wilson()), ll(c.target_correct.k), rate_value(c.target_correct),
              lo(c.target_correct.wilson()), hi(c.target_correct.wilson()), ll(c.correct_target_unknown),
              ll(c.excluded_infra), ll(c.excluded_not_run), ll(c.missing), c.beyond_run_budget}));
      const auto bt = best_speedup(trs, b, true, s.bootstrap, g.label);
      const auto ba = best_speedup(trs, b, false, s.bootstrap, g.label);
      auto where = [](const BestSpeedup& x) -> std::vector<Value> {
        if (!x.where) return {Value(), Value(), Value()};
        return {x.where->run, ll(x.where->id), ll(x.turn)};
      };
      std::vector<Value> row = {ll(b), ll(static_cast<long long>(trs.size())), opt(bt.value), lo(bt.interval), hi(bt.interval)};
      for (auto& v : where(bt)) row.push_back(v);
      row.push_back(ll(bt.trajectories_with_kernel));
      for (auto& v : std::vector<Value>{opt(ba.value), lo(ba.interval), hi(ba.interval)}) row.push_back(v);
      for (auto& v : where(ba)) row.push_back(v);
      row.push_back(ll(ba.trajectories_with_kernel));
      t.best.add(with_group(g, std::move(row)));
      for (bool target : {false, true}) {
        const auto curve = fast_p(trs, b, target, s.fastp_unit, grid);
        for (const auto& pt : curve.points)
          t.fastp.add(with_group(g, {std::string(to_string(s.fastp_unit)), ll(b), std::string(target ? "fastp_inst" : "fast_p"),
                                     pt.p, ll(pt.rate.n), ll(pt.rate.k), rate_value(pt.rate), lo(pt.rate.wilson()),
                                     hi(pt.rate.wilson())}));
      }
    }
    for (const auto& c : correctness_by_turn(trs, max_turn))
      t.by_turn.add(with_group(g, {ll(c.turn), ll(c.correct.n), ll(c.correct.k), rate_value(c.correct), lo(c.correct.wilson()),
                                   hi(c.correct.wilson()), ll(c.target_correct.k), rate_value(c.target_correct),
                                   lo(c.target_correct.wilson()), hi(c.target_correct.wilson())}));
    // Transitions in the diagram's state order.
    const auto& order = transition_state_order();
    auto rank = [&](const std::string& st) { return std::find(order.begin(), order.end(), st) - order.begin(); };
    std::vector<std::pair<std::pair<std::string, std::string>, long long>> pairs(tx.counts.begin(), tx.counts.end());
    std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      return std::make_pair(rank(a.first.first), rank(a.first.second)) < std::make_pair(rank(b.first.first), rank(b.first.second));
    });
    for (const auto& [ft, n] : pairs)
      t.transitions.add(with_group(g, {ft.first, ft.second, ll(n), static_cast<double>(n) / static_cast<double>(tx.from_totals.at(ft.first))}));
    const auto rl = reasoning_length(trs, max_turn);
    for (const auto& x : rl.by_turn)
      t.reasoning.add(with_group(g, {ll(x.turn), ll(x.turns), rl.unit, ll(rl.tokens_reported),
                                     x.turns ? Value(x.mean) : Value(), x.turns ? Value(x.median) : Value(),
                                     x.turns ? Value(x.max) : Value()}));
    for (const Trajectory* tr : trs) {
      std::string states;
      std::optional<double> best_any, best_target;
      for (const TurnRow* turn : tr->turns) {
        states += (states.empty() ? "" : " ") + metrics::transition_state(*turn);
        if (turn->correct() && turn->speedup_geomean) {
          t.speedups.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(turn->turn), *turn->speedup_geomean, turn->target_correct()}));
          best_any = std::max(best_any.value_or(0), *turn->speedup_geomean);
          if (turn->target_correct()) best_target = std::max(best_target.value_or(0), *turn->speedup_geomean);
        }
        if (s.turns_table)
          t.turns.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(turn->turn), std::string(to_string(turn->state)),
                                     metrics::transition_state(*turn), is_counted(turn->state), opt(turn->target_executed),
                                     opt(turn->speedup_geomean), opt(turn->reasoning_tokens), ll(turn->reasoning_chars),
                                     opt(turn->output_tokens)}));
      }
      t.trajectories.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(static_cast<long long>(tr->turns.size())), tr->finished, states,
                                        metrics::transition_state(*tr->turns.back()), opt(best_any), opt(best_target)}));
    }
  }
  r.add(std::move(t.coverage));
  r.add(std::move(t.correctness));
  r.add(std::move(t.best));
  r.add(std::move(t.fastp));
  r.add(std::move(t.by_turn));
  r.add(std::move(t.transitions));
  r.add(std::move(t.reasoning));
  r.add(std::move(t.speedups));
  r.add(std::move(t.trajectories));
  if (s.turns_table) r.add(std::move(t.turns));

  if (!s.comparisons.empty()) {
    Table c = make_table("comparison", "Comparisons", "b against a per problem and budget: the difference b - a and its 95% interval.",
                         {{"comparison", FieldType::string, "", "A..B as given"},
                          {"a", FieldType::string, "", "selection a"},
                          {"b", FieldType::string, "", "selection b"},
                          {"problem", FieldType::string, "", ""},
                          {"budget", FieldType::integer, "turns", ""},
                          {"metric", FieldType::string, "", "correct_rate, target_rate (fraction); best_speedup, best_target_speedup (x)"},
                          {"a_value", FieldType::number, "", "null: no qualifying turn / kernel"},
                          {"b_value", FieldType::number, "", ""},
                          {"a_units", FieldType::integer, "", "turns (rates) or trajectories (speedups)"},
                          {"b_units", FieldType::integer, "", ""},
                          {"difference", FieldType::number, "", "b - a (speedups: no kernel scores 0)"},
                          {"diff_lo", FieldType::number, "", "95% interval, low"},
                          {"diff_hi", FieldType::number, "", "95% interval, high"},
                          {"excludes_zero", FieldType::boolean, "", "the interval lies entirely above or below 0"},
                          {"method", FieldType::string, "", "the interval's method"}},
                         false);
    const auto order = problem_order(set);
    for (const auto& spec : s.comparisons)
      for (const auto& row : compare(trajectories, spec, s.budgets, s.bootstrap, order))
        c.add({spec.text, spec.a.text, spec.b.text, row.problem, ll(row.budget), row.metric, opt(row.a), opt(row.b),
               ll(row.a_units), ll(row.b_units), opt(row.difference), lo(row.interval), hi(row.interval), row.excludes_zero,
               row.method});
    r.add(std::move(c));
  }
  return r;
}

}  // namespace ptxbench::report

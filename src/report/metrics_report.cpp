// Builds the metrics report from runs and turns: the meta block, then every registered table in rank order.
#include "report/metrics_report.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/error.h"
#include "metrics/transitions.h"
#include "report/metric_table.h"

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
    if (used != item.size() || v < 1)
      throw InputError("--budgets: '" + item + "' is not a turn budget (an integer >= 1)");
    out.insert(v);
  }
  if (out.empty()) throw InputError("--budgets: give at least one turn budget, e.g. 1,4,8");
  return {out.begin(), out.end()};
}

Report build_metrics_report(const TurnSet& set_in, const ReportSettings& s) {
  if (s.budgets.empty()) throw InputError("no turn budget given");
  // --target seen: the target metrics read the paper's looser flag (a copy; the input is unchanged).
  TurnSet seen_copy;
  if (s.target_seen) {
    seen_copy = set_in;
    for (auto& t : seen_copy.turns) t.stored.target_executed = t.target_seen;
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
  if (split_language)
    by = metrics::parse_group_by([&] {
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
             {{"rates",
               "Wilson score interval, 95%, treating turns as independent (turns of one trajectory are correlated: "
               "read it as optimistic)"},
              {"best_speedup", "percentile bootstrap over trajectories, 95%, " + std::to_string(s.bootstrap.resamples) +
                                   " resamples, seed " + std::to_string(s.bootstrap.seed) +
                                   " (mixed with the group's label); a resample with no qualifying kernel scores 0"},
              {"fast_p", "Wilson score interval, 95%, over units"},
              {"comparison_rates", "Newcombe hybrid score interval (method 10) of the difference, 95%"},
              {"comparison_speedups",
               "percentile bootstrap of the difference, 95%, each side resampled over its own trajectories"}}},
            {"bootstrap", {{"resamples", s.bootstrap.resamples}, {"seed", s.bootstrap.seed}}},
            {"rules",
             {{"counted", "a turn counts when it is stored, judged, and not infra_error, quota_exhausted or not_run"},
              {"budget",
               "budget t covers the turns numbered 1..t of each trajectory; excluded, pending and missing turns are in "
               "no denominator and are counted apart"},
              {"target_correct", "correct and target_executed true; unknown target execution is not target-correct"},
              {"reasoning_unit", "tokens when every reply of the group reports reasoning tokens, else characters"}}}};
  for (Dim d : by.dims) r.meta["group_by"].push_back(std::string(to_string(d)));
  r.meta["target_flag"] = s.target_seen ? "target_seen: some target instruction executed (the paper's flag)"
                                        : "target_executed: the target instructions did the problem's work (strict)";
  if (split_language) r.meta["group_by_note"] = "the input holds CUDA and Triton runs: grouped by language too";
  r.meta["transition_states"] = transition_state_order();

  int max_turn = s.budgets.back();
  for (const auto& run : set.runs) max_turn = std::max(max_turn, run.turns);
  for (const auto& tr : trajectories)
    if (!tr.turns.empty()) max_turn = std::max(max_turn, tr.turns.back()->turn);
  for (auto& t : build_metric_tables({set, s, trajectories, groups, max_turn})) r.add(std::move(t));
  return r;
}

}  // namespace ptxbench::report

// `comparison` (metrics/comparison.h, `--compare A..B`): b against a per problem and budget, the
// difference and its interval. Text: the differences, with the intervals' methods.
#include "metrics/comparison.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> comparison_table(const MetricInput& in) {
  const auto& s = in.settings;
  if (s.comparisons.empty()) return std::nullopt;
  Table c = plain_table(
      "comparison", "Comparisons", "b against a per problem and budget: the difference b - a and its 95% interval.",
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
       {"method", FieldType::string, "", "the interval's method"}});
  const auto order = metrics::problem_order(in.set);
  for (const auto& spec : s.comparisons)
    for (const auto& row : metrics::compare(in.trajectories, spec, s.budgets, s.bootstrap, order))
      c.add({spec.text, spec.a.text, spec.b.text, row.problem, ll(row.budget), row.metric, opt(row.a), opt(row.b),
             ll(row.a_units), ll(row.b_units), opt(row.difference), interval_lo(row.interval),
             interval_hi(row.interval), row.excludes_zero, row.method});
  return c;
}

std::vector<Grid> comparison_grid(const Report& r) {
  const Table* t = r.table("comparison");
  if (!t) return {};
  Grid g = plain_grid(*t, {"comparison", "problem", "budget", "metric", "a_value", "b_value", "difference", "diff_lo",
                           "diff_hi", "excludes_zero"});
  const json& m = r.meta;
  g.note = "Differences b - a. Rates: " + m["intervals"]["comparison_rates"].get<std::string>() +
           ". Speedups: " + m["intervals"]["comparison_speedups"].get<std::string>() + ".";
  return {g};
}

PTXBENCH_REGISTER_METRIC_TABLE(120, comparison_table);
PTXBENCH_REGISTER_TEXT_SECTION(110, comparison_grid);

}  // namespace
}  // namespace ptxbench::report

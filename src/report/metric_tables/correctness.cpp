// `correctness` (metrics/turn_correctness.h): turn correctness at the budgets, per group. Text: the
// paper's Table 1 layout and its Wilson intervals.
#include "metrics/turn_correctness.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> correctness_table(const MetricInput& in) {
  Table t = grouped_table(
      "correctness", "Turn correctness at turn budgets",
      "Of the counted turns 1..budget of every trajectory: correct, and target-instruction correct (correct with every "
      "target group executed).",
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
       {"correct_target_unknown", FieldType::integer, "turns",
        "correct turns whose target execution is unknown (not target-correct)"},
       {"excluded_infra_error", FieldType::integer, "turns",
        "infra_error / quota_exhausted turns 1..budget (excluded)"},
       {"excluded_not_run", FieldType::integer, "turns", "not_run turns 1..budget (excluded)"},
       {"missing", FieldType::integer, "turns", "expected_turns - turns - excluded: not stored yet or pending"},
       {"beyond_run_budget", FieldType::boolean, "", "the budget exceeds the turns a run was given"}});
  for (const auto& g : in.groups)
    for (int b : in.settings.budgets) {
      const auto c = metrics::turn_correctness(g.trajectories, b);
      t.add(with_group(g, {ll(b), ll(c.trajectories), ll(c.expected), ll(c.correct.n), ll(c.correct.k),
                           rate_value(c.correct), interval_lo(c.correct.wilson()), interval_hi(c.correct.wilson()),
                           ll(c.target_correct.k), rate_value(c.target_correct), interval_lo(c.target_correct.wilson()),
                           interval_hi(c.target_correct.wilson()), ll(c.correct_target_unknown), ll(c.excluded_infra),
                           ll(c.excluded_not_run), ll(c.missing), c.beyond_run_budget}));
    }
  return t;
}

std::vector<Grid> correctness_grids(const Report& r) {
  return budget_grids(
      r, "correctness", "Turn correctness (%): target-instruction (unrestricted)", "target_rate", "correct_rate",
      [](const Table& t, size_t i, const char* f) { return percent_cell(t.at(i, f)); },
      "Cells: target-instruction turn correctness at each budget, unrestricted correctness in parentheses; "
      "denominator = counted turns 1..t (trajectories x t when none is excluded or missing); \u2013 = 0; "
      "* = the budget exceeds the turns a run was given.");
}

std::vector<Grid> correctness_interval_grids(const Report& r) {
  return budget_grids(
      r, "correctness", "95% Wilson intervals (%): target-instruction (unrestricted)", "target", "correct",
      [](const Table& t, size_t i, const char* f) {
        const std::string p(f);
        return interval_text(t, i, (p + "_lo").c_str(), (p + "_hi").c_str(), true);
      },
      "Wilson score intervals treat turns as independent; turns of one trajectory are correlated, so read them as "
      "optimistic.");
}

PTXBENCH_REGISTER_METRIC_TABLE(30, correctness_table);
PTXBENCH_REGISTER_TEXT_SECTION(30, correctness_grids);
PTXBENCH_REGISTER_TEXT_SECTION(40, correctness_interval_grids);

}  // namespace
}  // namespace ptxbench::report

// `best_speedup` (metrics/best_speedup.h): the best (target-)correct kernel within each budget,
// where it is, and its bootstrap interval. Text: the paper's Table 1 layout and the intervals.
#include "metrics/best_speedup.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> best_speedup_table(const MetricInput& in) {
  Table t = grouped_table(
      "best_speedup", "Best speedup within turn budgets",
      "Highest library-relative geomean speedup among the (target-)correct turns 1..budget of any trajectory; 95% "
      "percentile bootstrap over trajectories.",
      {{"budget", FieldType::integer, "turns", "turn budget t"},
       {"trajectories", FieldType::integer, "trajectories", ""},
       {"best_target_speedup", FieldType::number, "x (library time / candidate time)",
        "among target-correct turns; null: none"},
       {"best_target_lo", FieldType::number, "x", "95% bootstrap interval, low"},
       {"best_target_hi", FieldType::number, "x", "95% bootstrap interval, high"},
       {"best_target_run", FieldType::string, "", "where the best target-correct kernel is: run"},
       {"best_target_trajectory", FieldType::integer, "", "... trajectory"},
       {"best_target_turn", FieldType::integer, "", "... turn (ties: earliest turn, then first trajectory)"},
       {"trajectories_with_target_kernel", FieldType::integer, "trajectories",
        "trajectories with a target-correct timed turn 1..budget"},
       {"best_speedup", FieldType::number, "x (library time / candidate time)", "among correct turns; null: none"},
       {"best_lo", FieldType::number, "x", "95% bootstrap interval, low"},
       {"best_hi", FieldType::number, "x", "95% bootstrap interval, high"},
       {"best_run", FieldType::string, "", "where the best correct kernel is: run"},
       {"best_trajectory", FieldType::integer, "", "... trajectory"},
       {"best_turn", FieldType::integer, "", "... turn"},
       {"trajectories_with_kernel", FieldType::integer, "trajectories",
        "trajectories with a correct timed turn 1..budget"}});
  // value, interval, where (run, trajectory, turn), trajectories with a kernel
  auto columns = [](const metrics::BestSpeedup& x, std::vector<Value>& row) {
    row.push_back(opt(x.value));
    row.push_back(interval_lo(x.interval));
    row.push_back(interval_hi(x.interval));
    if (x.where) row.insert(row.end(), {x.where->run, ll(x.where->id), ll(x.turn)});
    else row.insert(row.end(), {Value(), Value(), Value()});
    row.push_back(ll(x.trajectories_with_kernel));
  };
  for (const auto& g : in.groups)
    for (int b : in.settings.budgets) {
      const auto& trs = g.trajectories;
      std::vector<Value> row = {ll(b), ll(static_cast<long long>(trs.size()))};
      columns(metrics::best_speedup(trs, b, true, in.settings.bootstrap, g.label), row);
      columns(metrics::best_speedup(trs, b, false, in.settings.bootstrap, g.label), row);
      t.add(with_group(g, std::move(row)));
    }
  return t;
}

std::vector<Grid> best_speedup_grids(const Report& r) {
  return budget_grids(
      r, "best_speedup", "Best speedup vs library (x): target-instruction (unrestricted)", "best_target_speedup",
      "best_speedup", [](const Table& t, size_t i, const char* f) { return speedup_cell(t.at(i, f)); },
      "Cells: highest geomean speedup among target-correct turns 1..t of any trajectory, any correct turn in "
      "parentheses; "
      "\u2013 = no such kernel.");
}

std::vector<Grid> best_speedup_interval_grids(const Report& r) {
  const std::string method = r.meta.contains("intervals") ? r.meta["intervals"].value("best_speedup", "") : "";
  return budget_grids(
      r, "best_speedup", "95% bootstrap intervals of the best speedup: target-instruction (unrestricted)",
      "best_target", "best",
      [](const Table& t, size_t i, const char* f) {
        const std::string p(f);
        return interval_text(t, i, (p + "_lo").c_str(), (p + "_hi").c_str(), false);
      },
      method);
}

PTXBENCH_REGISTER_METRIC_TABLE(40, best_speedup_table);
PTXBENCH_REGISTER_TEXT_SECTION(50, best_speedup_grids);
PTXBENCH_REGISTER_TEXT_SECTION(60, best_speedup_interval_grids);

}  // namespace
}  // namespace ptxbench::report

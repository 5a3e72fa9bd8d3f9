// `coverage` (metrics/coverage.h): what each group's numbers rest on. Text: the same, as is.
#include "metrics/coverage.h"
#include "metrics/transitions.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> coverage_table(const MetricInput& in) {
  Table t = grouped_table(
      "coverage", "Coverage",
      "What each group's numbers rest on: finished and unfinished trajectories, excluded and missing turns.",
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
       {"transition_pairs_skipped", FieldType::integer, "pairs",
        "consecutive turns with an excluded or pending one: no transition"}});
  for (const auto& g : in.groups) {
    const auto cov = metrics::coverage(g.trajectories);
    const auto skipped = metrics::transitions(g.trajectories).skipped;
    t.add(with_group(g, {ll(cov.trajectories), ll(cov.finished), ll(cov.unfinished), ll(cov.turns_budget),
                         ll(cov.stored), ll(cov.counted), ll(cov.excluded_infra), ll(cov.excluded_not_run),
                         ll(cov.pending), ll(cov.missing), ll(skipped)}));
  }
  return t;
}

std::vector<Grid> coverage_grid(const Report& r) {
  const Table* t = r.table("coverage");
  if (!t) return {};
  return {plain_grid(*t, {"group", "trajectories", "finished", "unfinished", "counted", "excluded_infra_error",
                          "excluded_not_run", "pending", "missing"})};
}

PTXBENCH_REGISTER_METRIC_TABLE(20, coverage_table);
PTXBENCH_REGISTER_TEXT_SECTION(20, coverage_grid);

}  // namespace
}  // namespace ptxbench::report

// `speedups`: the geomean speedup of every correct, timed turn (the HTML's box plots). Text: its
// row count.
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> speedups_table(const MetricInput& in) {
  Table t = grouped_table(
      "speedups", "Speedup distribution", "The geomean speedup of every correct, timed turn.",
      {{"trajectory_run", FieldType::string, "", "run of the turn"},
       {"trajectory_problem", FieldType::string, "", "problem of the turn"},
       {"trajectory", FieldType::integer, "", ""},
       {"turn", FieldType::integer, "", ""},
       {"speedup", FieldType::number, "x (library time / candidate time)", "geomean over the benchmark shapes"},
       {"target_correct", FieldType::boolean, "", "every target group executed"}});
  for (const auto& g : in.groups)
    for (const metrics::Trajectory* tr : g.trajectories)
      for (const metrics::TurnRow* turn : tr->turns)
        if (turn->correct() && turn->stored.speedup_geomean)
          t.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(turn->turn), *turn->stored.speedup_geomean,
                               turn->target_correct()}));
  return t;
}

std::vector<Grid> speedups_note(const Report& r) { return row_count_note(r, "speedups"); }

PTXBENCH_REGISTER_METRIC_TABLE(90, speedups_table);
PTXBENCH_REGISTER_TEXT_SECTION(130, speedups_note);

}  // namespace
}  // namespace ptxbench::report

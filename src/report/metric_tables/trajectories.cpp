// `trajectories`: one row per trajectory, its states in turn order and its best kernels (the
// HTML's trajectory table and drill-down). Text: its row count.
#include <algorithm>

#include "metrics/transitions.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> trajectories_table(const MetricInput& in) {
  Table t = grouped_table(
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
  for (const auto& g : in.groups)
    for (const metrics::Trajectory* tr : g.trajectories) {
      std::string states;
      std::optional<double> best_any, best_target;
      for (const metrics::TurnRow* turn : tr->turns) {
        states += (states.empty() ? "" : " ") + metrics::transition_state(*turn);
        if (turn->correct() && turn->stored.speedup_geomean) {
          best_any = std::max(best_any.value_or(0), *turn->stored.speedup_geomean);
          if (turn->target_correct()) best_target = std::max(best_target.value_or(0), *turn->stored.speedup_geomean);
        }
      }
      t.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(static_cast<long long>(tr->turns.size())), tr->finished,
                           states, metrics::transition_state(*tr->turns.back()), opt(best_any), opt(best_target)}));
    }
  return t;
}

std::vector<Grid> trajectories_note(const Report& r) { return row_count_note(r, "trajectories"); }

PTXBENCH_REGISTER_METRIC_TABLE(100, trajectories_table);
PTXBENCH_REGISTER_TEXT_SECTION(140, trajectories_note);

}  // namespace
}  // namespace ptxbench::report

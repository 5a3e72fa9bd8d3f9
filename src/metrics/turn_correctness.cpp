// Turn correctness and target-instruction turn correctness rates at a turn budget.
#include "metrics/turn_correctness.h"

namespace ptxbench::metrics {

TurnCorrectness turn_correctness(const std::vector<const Trajectory*>& trajectories, int budget) {
  TurnCorrectness c;
  c.budget = budget;
  c.trajectories = static_cast<long long>(trajectories.size());
  c.expected = c.trajectories * budget;
  for (const Trajectory* tr : trajectories) {
    if (tr->info && budget > tr->info->turns) c.beyond_run_budget = true;
    for (const TurnRow* t : tr->turns) {
      if (t->turn > budget) break;
      if (t->state == TurnState::not_run) ++c.excluded_not_run;
      else if (is_excluded(t->state)) ++c.excluded_infra;
      if (!is_counted(t->state)) continue;
      ++c.correct.n;
      if (t->correct()) {
        ++c.correct.k;
        if (t->target_correct()) ++c.target_correct.k;
        else if (!t->stored.target_executed) ++c.correct_target_unknown;
      }
    }
  }
  c.target_correct.n = c.correct.n;
  c.missing = c.expected - c.correct.n - c.excluded_infra - c.excluded_not_run;
  return c;
}

}  // namespace ptxbench::metrics

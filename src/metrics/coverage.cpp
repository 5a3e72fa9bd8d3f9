// What a group's numbers rest on: trajectories, turns stored, counted, excluded, pending and missing.
#include "metrics/coverage.h"

namespace ptxbench::metrics {

Coverage coverage(const std::vector<const Trajectory*>& trajectories) {
  Coverage c;
  for (const Trajectory* tr : trajectories) {
    ++c.trajectories;
    ++(tr->finished ? c.finished : c.unfinished);
    const int budget = tr->info ? tr->info->turns : 0;
    c.turns_budget += budget;
    long long stored_in_budget = 0;
    for (const TurnRow* t : tr->turns) {
      ++c.stored;
      if (t->turn <= budget) ++stored_in_budget;
      if (t->state == TurnState::pending) ++c.pending;
      else if (t->state == TurnState::not_run) ++c.excluded_not_run;
      else if (is_excluded(t->state)) ++c.excluded_infra;
      else ++c.counted;
    }
    c.missing += budget - stored_in_budget;
  }
  return c;
}

}  // namespace ptxbench::metrics

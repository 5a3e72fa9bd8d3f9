// Turn correctness rate and target-instruction turn correctness rate at a turn budget t: of the
// counted turns 1..t of every trajectory, the share that is correct (resp. correct with every
// target group executed). docs/metrics.md, "Turn correctness".
#pragma once
#include <vector>

#include "metrics/grouping.h"
#include "metrics/interval.h"

namespace ptxbench::metrics {

struct TurnCorrectness {
  int budget = 0;
  long long trajectories = 0;
  long long expected = 0;                // trajectories x budget
  Rate correct, target_correct;          // n: counted turns 1..budget
  long long correct_target_unknown = 0;  // correct turns whose target execution is unknown (not target-correct)
  long long excluded_infra = 0;          // infra_error and quota_exhausted turns 1..budget
  long long excluded_not_run = 0;        // not_run turns 1..budget
  long long missing = 0;                 // expected - counted - excluded: not stored yet, or pending
  bool beyond_run_budget = false;        // budget > the turns some run was given
};

TurnCorrectness turn_correctness(const std::vector<const Trajectory*>& trajectories, int budget);

}  // namespace ptxbench::metrics

// Correctness at each turn number k (not cumulative): of the counted turns numbered k, the share
// that is correct and target-correct. The "correctness by turn" plot. docs/metrics.md.
#pragma once
#include <vector>

#include "metrics/grouping.h"
#include "metrics/interval.h"

namespace ptxbench::metrics {

struct TurnNumberCorrectness {
  int turn = 0;
  Rate correct, target_correct;  // n: counted turns numbered `turn`
};

// One entry per turn number 1..max_turn.
std::vector<TurnNumberCorrectness> correctness_by_turn(const std::vector<const Trajectory*>& trajectories,
                                                       int max_turn);

}  // namespace ptxbench::metrics

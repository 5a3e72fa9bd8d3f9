// Error-state transitions between consecutive turns k -> k+1 of a trajectory, both counted.
// "correct" splits into target_correct, correct_no_target and correct_target_unknown.
// docs/metrics.md, "Transitions".
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "metrics/grouping.h"

namespace ptxbench::metrics {

// The state a turn has in the transition diagram.
std::string transition_state(const TurnRow& t);
// Every transition state in display order (errors, correct kinds, then the model's no-kernel states).
const std::vector<std::string>& transition_state_order();

struct Transitions {
  std::map<std::pair<std::string, std::string>, long long> counts;  // (from, to) -> pairs
  std::map<std::string, long long> from_totals;                     // from -> pairs leaving it
  long long pairs = 0;
  // Consecutive stored turns k, k+1 where either is not counted (excluded or pending): no pair.
  long long skipped = 0;
};

Transitions transitions(const std::vector<const Trajectory*>& trajectories);

}  // namespace ptxbench::metrics

// Reasoning length per turn number: over the turns with a model reply (counted turns and not_run
// turns), the mean, median and largest reasoning length. The unit is tokens when the provider
// reported reasoning tokens for every such turn of the group, else characters of reasoning text;
// the unit is part of every result. docs/metrics.md, "Reasoning length".
#pragma once
#include <string>
#include <vector>

#include "metrics/grouping.h"

namespace ptxbench::metrics {

struct ReasoningAtTurn {
  int turn = 0;
  long long turns = 0;  // turns with a reply numbered `turn`
  double mean = 0, median = 0, max = 0;
};

struct ReasoningLength {
  std::string unit;                      // "tokens" or "characters"
  long long turns = 0;                   // replies considered
  long long tokens_reported = 0;         // of them, with reasoning tokens reported
  std::vector<ReasoningAtTurn> by_turn;  // turn numbers 1..max_turn
};

ReasoningLength reasoning_length(const std::vector<const Trajectory*>& trajectories, int max_turn);

}  // namespace ptxbench::metrics

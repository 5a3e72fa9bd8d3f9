// What a group's numbers rest on: trajectories (finished or not), turns stored, counted,
// excluded (infra_error / quota_exhausted, not_run), pending and missing. docs/metrics.md.
#pragma once
#include <vector>

#include "metrics/grouping.h"

namespace ptxbench::metrics {

struct Coverage {
  long long trajectories = 0, finished = 0, unfinished = 0;
  long long turns_budget = 0;  // sum over trajectories of their run's turn budget
  long long stored = 0, counted = 0, excluded_infra = 0, excluded_not_run = 0, pending = 0;
  long long missing = 0;  // turns_budget - stored (never stored)
};

Coverage coverage(const std::vector<const Trajectory*>& trajectories);

}  // namespace ptxbench::metrics

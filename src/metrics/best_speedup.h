// Best speedup within a turn budget t: the highest library-relative geomean speedup among the
// correct (resp. target-correct) turns 1..t of any trajectory, with a percentile bootstrap
// interval over trajectories. docs/metrics.md, "Best speedup".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/grouping.h"
#include "metrics/interval.h"

namespace ptxbench::metrics {

// The kernel a trajectory's best is: the highest geomean among its qualifying turns 1..budget;
// ties go to the earliest turn. nullptr when no turn qualifies.
const TurnRow* trajectory_best(const Trajectory& t, int budget, bool target_only);

struct BestSpeedup {
  std::optional<double> value;        // nullopt: no qualifying turn with a measured speedup
  std::optional<Interval> interval;   // bootstrap over trajectories (a resample with no kernel scores 0)
  const Trajectory* where = nullptr;  // ties: earliest turn, then the trajectory listed first
  int turn = 0;
  long long trajectories_with_kernel = 0;
};

struct BootstrapSettings {
  int resamples = 2000;
  uint64_t seed = 20260101;
};

BestSpeedup best_speedup(const std::vector<const Trajectory*>& trajectories, int budget, bool target_only,
                         const BootstrapSettings& bootstrap, const std::string& group_label);

// The per-trajectory best geomeans (0 where none), in the trajectories' order.
std::vector<double> per_trajectory_best(const std::vector<const Trajectory*>& trajectories, int budget,
                                        bool target_only);

}  // namespace ptxbench::metrics

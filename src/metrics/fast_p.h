// fast_p and FastpInst. as curves over the speedup threshold p. A unit counts at p when its best
// kernel within the budget is correct (FastpInst.: target-correct) and its measured geomean
// speedup is > p. Units: each trajectory's best kernel (the default), or KernelBench's per-task
// definition (each problem's best kernel over its trajectories). docs/metrics.md, "fast_p".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "metrics/grouping.h"
#include "metrics/interval.h"

namespace ptxbench::metrics {

enum class FastpUnit { trajectory, task };
std::string_view to_string(FastpUnit u);
FastpUnit parse_fastp_unit(const std::string& s);  // "trajectory" or "task"; InputError otherwise

struct FastpPoint {
  double p = 0;
  Rate rate;  // k: units faster than p; n: units
};

struct FastpCurve {
  bool target_only = false;
  int budget = 0;
  FastpUnit unit = FastpUnit::trajectory;
  std::vector<FastpPoint> points;
};

// p = 0, step, 2 step, ..., up to max(2, the largest speedup + step), at most 10; each value
// rounded to 1e-9 so a grid is the same wherever it is computed. step > 0 (InputError otherwise).
std::vector<double> fastp_grid(double max_speedup, double step = 0.05);

// Units: trajectories with at least one counted turn 1..budget (a trajectory whose turns were all
// excluded is no unit); per task, problems with at least one such trajectory.
FastpCurve fast_p(const std::vector<const Trajectory*>& trajectories, int budget, bool target_only, FastpUnit unit,
                  const std::vector<double>& grid);

}  // namespace ptxbench::metrics

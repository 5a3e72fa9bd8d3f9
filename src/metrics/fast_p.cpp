// fast_p and FastpInst. as curves over the speedup threshold p, per trajectory or per task.
#include "metrics/fast_p.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "metrics/best_speedup.h"

namespace ptxbench::metrics {

std::string_view to_string(FastpUnit u) { return u == FastpUnit::task ? "task" : "trajectory"; }

FastpUnit parse_fastp_unit(const std::string& s) {
  if (s == "trajectory") return FastpUnit::trajectory;
  if (s == "task") return FastpUnit::task;
  throw InputError("--fastp-unit: '" + s + "' (use trajectory or task)");
}

std::vector<double> fastp_grid(double max_speedup, double step) {
  if (!(step > 0) || step > 10) throw InputError("--fastp-step: must be > 0 and at most 10");
  const double top = std::min(10.0, std::max(2.0, max_speedup + step));
  const int steps = static_cast<int>(std::ceil(top / step - 1e-9));
  std::vector<double> grid;
  for (int i = 0; i <= steps; ++i) grid.push_back(std::round(i * step * 1e9) / 1e9);
  return grid;
}

FastpCurve fast_p(const std::vector<const Trajectory*>& trajectories, int budget, bool target_only, FastpUnit unit,
                  const std::vector<double>& grid) {
  FastpCurve c;
  c.target_only = target_only, c.budget = budget, c.unit = unit;
  // Each unit's best measured geomean among qualifying turns (nullopt: none).
  std::vector<std::optional<double>> best;
  std::map<std::string, size_t> task_index;
  for (const Trajectory* tr : trajectories) {
    const bool has_counted = std::any_of(tr->turns.begin(), tr->turns.end(),
                                         [&](const TurnRow* t) { return t->turn <= budget && is_counted(t->state); });
    if (!has_counted) continue;
    const TurnRow* b = trajectory_best(*tr, budget, target_only);
    std::optional<double> v = b ? std::optional<double>(*b->stored.speedup_geomean) : std::nullopt;
    if (unit == FastpUnit::trajectory) {
      best.push_back(v);
      continue;
    }
    auto [it, inserted] = task_index.try_emplace(tr->problem, best.size());
    if (inserted) best.push_back(v);
    else if (v && (!best[it->second] || *v > *best[it->second])) best[it->second] = v;
  }
  for (double p : grid) {
    FastpPoint pt;
    pt.p = p;
    pt.rate.n = static_cast<long long>(best.size());
    for (const auto& v : best)
      if (v && *v > p) ++pt.rate.k;
    c.points.push_back(pt);
  }
  return c;
}

}  // namespace ptxbench::metrics

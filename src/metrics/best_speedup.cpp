// Best speedup within a turn budget, with a bootstrap interval over trajectories.
#include "metrics/best_speedup.h"

#include <algorithm>

namespace ptxbench::metrics {

const TurnRow* trajectory_best(const Trajectory& tr, int budget, bool target_only) {
  const TurnRow* best = nullptr;
  for (const TurnRow* t : tr.turns) {
    if (t->turn > budget) break;
    if (!(target_only ? t->target_correct() : t->correct()) || !t->stored.speedup_geomean) continue;
    if (!best || *t->stored.speedup_geomean > *best->stored.speedup_geomean)
      best = t;  // strict: ties keep the earlier turn
  }
  return best;
}

std::vector<double> per_trajectory_best(const std::vector<const Trajectory*>& trajectories, int budget,
                                        bool target_only) {
  std::vector<double> out;
  out.reserve(trajectories.size());
  for (const Trajectory* tr : trajectories) {
    const TurnRow* b = trajectory_best(*tr, budget, target_only);
    out.push_back(b ? *b->stored.speedup_geomean : 0.0);
  }
  return out;
}

BestSpeedup best_speedup(const std::vector<const Trajectory*>& trajectories, int budget, bool target_only,
                         const BootstrapSettings& bootstrap, const std::string& group_label) {
  BestSpeedup b;
  for (const Trajectory* tr : trajectories) {
    const TurnRow* t = trajectory_best(*tr, budget, target_only);
    if (!t) continue;
    ++b.trajectories_with_kernel;
    const double v = *t->stored.speedup_geomean;
    if (!b.value || v > *b.value || (v == *b.value && t->turn < b.turn)) b.value = v, b.where = tr, b.turn = t->turn;
  }
  if (b.value && !trajectories.empty()) {
    const auto bests = per_trajectory_best(trajectories, budget, target_only);
    b.interval = bootstrap_percentile(
        bests.size(), bootstrap.resamples,
        seed_for(bootstrap.seed, group_label + (target_only ? "/target/" : "/any/") + std::to_string(budget)),
        [&](const std::vector<size_t>& idx) {
          double m = 0;
          for (size_t i : idx) m = std::max(m, bests[i]);
          return m;
        });
  }
  return b;
}

}  // namespace ptxbench::metrics

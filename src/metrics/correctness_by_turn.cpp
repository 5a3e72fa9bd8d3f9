// Correctness at each turn number (not cumulative): the correct and target-correct shares.
#include "metrics/correctness_by_turn.h"

namespace ptxbench::metrics {

std::vector<TurnNumberCorrectness> correctness_by_turn(const std::vector<const Trajectory*>& trajectories,
                                                       int max_turn) {
  std::vector<TurnNumberCorrectness> out(static_cast<size_t>(std::max(max_turn, 0)));
  for (size_t i = 0; i < out.size(); ++i) out[i].turn = static_cast<int>(i) + 1;
  for (const Trajectory* tr : trajectories)
    for (const TurnRow* t : tr->turns) {
      if (t->turn > max_turn || !is_counted(t->state)) continue;
      auto& o = out[static_cast<size_t>(t->turn - 1)];
      ++o.correct.n, ++o.target_correct.n;
      if (t->correct()) ++o.correct.k;
      if (t->target_correct()) ++o.target_correct.k;
    }
  return out;
}

}  // namespace ptxbench::metrics

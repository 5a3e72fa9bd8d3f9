// Reasoning length per turn number (mean, median, largest), in tokens where every turn reported them.
#include "metrics/reasoning_length.h"

#include <algorithm>

#include "metrics/interval.h"

namespace ptxbench::metrics {

ReasoningLength reasoning_length(const std::vector<const Trajectory*>& trajectories, int max_turn) {
  ReasoningLength out;
  auto has_reply = [](const TurnRow* t) { return is_counted(t->state) || t->state == TurnState::not_run; };
  for (const Trajectory* tr : trajectories)
    for (const TurnRow* t : tr->turns)
      if (t->turn <= max_turn && has_reply(t)) {
        ++out.turns;
        if (t->stored.reasoning_tokens) ++out.tokens_reported;
      }
  const bool tokens = out.turns > 0 && out.tokens_reported == out.turns;
  out.unit = tokens ? "tokens" : "characters";
  std::vector<std::vector<double>> values(static_cast<size_t>(std::max(max_turn, 0)));
  for (const Trajectory* tr : trajectories)
    for (const TurnRow* t : tr->turns)
      if (t->turn <= max_turn && has_reply(t))
        values[static_cast<size_t>(t->turn - 1)].push_back(
            static_cast<double>(tokens ? *t->stored.reasoning_tokens : t->stored.reasoning_chars));
  for (size_t i = 0; i < values.size(); ++i) {
    ReasoningAtTurn r;
    r.turn = static_cast<int>(i) + 1;
    auto& v = values[i];
    r.turns = static_cast<long long>(v.size());
    if (!v.empty()) {
      std::sort(v.begin(), v.end());
      double sum = 0;
      for (double x : v) sum += x;
      r.mean = sum / static_cast<double>(v.size());
      r.median = quantile_sorted(v, 0.5);
      r.max = v.back();
    }
    out.by_turn.push_back(r);
  }
  return out;
}

}  // namespace ptxbench::metrics

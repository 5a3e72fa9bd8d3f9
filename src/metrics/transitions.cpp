// Error-state transitions between consecutive counted turns of a trajectory.
#include "metrics/transitions.h"

#include "core/error_state.h"

namespace ptxbench::metrics {

std::string transition_state(const TurnRow& t) {
  if (t.state != TurnState::correct) return std::string(to_string(t.state));
  return judged_state(Verdict::correct, t.stored.target_executed);
}

const std::vector<std::string>& transition_state_order() {
  static const std::vector<std::string> order = [] {
    std::vector<std::string> o = judged_state_order();
    for (const char* s :
         {"no_code", "truncated", "refused", "empty", "reasoning_only", "request_too_large", "provider_error"})
      o.push_back(s);
    return o;
  }();
  return order;
}

Transitions transitions(const std::vector<const Trajectory*>& trajectories) {
  Transitions out;
  for (const Trajectory* tr : trajectories)
    for (size_t i = 0; i + 1 < tr->turns.size(); ++i) {
      const TurnRow& a = *tr->turns[i];
      const TurnRow& b = *tr->turns[i + 1];
      if (b.turn != a.turn + 1) continue;  // a gap: the turn between is not stored
      if (!is_counted(a.state) || !is_counted(b.state)) {
        ++out.skipped;
        continue;
      }
      const auto from = transition_state(a);
      ++out.counts[{from, transition_state(b)}];
      ++out.from_totals[from];
      ++out.pairs;
    }
  return out;
}

}  // namespace ptxbench::metrics

// What a request holds: the system text, the problem, the last K turns in full and older turns as one line each.
#include "agent/context_policy.h"

#include "agent/feedback.h"

namespace ptxbench {

ContextPlan build_context(const std::string& problem_text, const std::vector<TurnMemory>& history,
                          const ContextPolicy& policy) {
  ContextPlan plan;
  const size_t n = history.size();
  const size_t keep = policy.full_turns < 0 ? n : std::min(n, static_cast<size_t>(policy.full_turns));
  const size_t first_full = n - keep;
  json full = json::array(), one_line = json::array();
  long long bytes_cut = 0;
  std::string first = problem_text;
  if (first_full > 0) {
    first += "\n## Your earlier turns (one line each)\n\n";
    for (size_t i = 0; i < first_full; ++i) {
      const TurnMemory& t = history[i];
      first += "- " + one_line_summary(t.turn, t.state, t.target_executed, t.speedup) + "\n";
      one_line.push_back(t.turn);
      bytes_cut += static_cast<long long>(t.reply.size() + t.feedback.size());
    }
  }
  plan.messages.push_back({"user", first});
  for (size_t i = first_full; i < n; ++i) {
    const TurnMemory& t = history[i];
    // Providers reject empty assistant messages; a turn without answer text says what it was.
    plan.messages.push_back({"assistant", t.reply.empty() ? "(no answer text: " + t.state + ")" : t.reply});
    plan.messages.push_back({"user", t.feedback});
    full.push_back(t.turn);
  }
  plan.record = {{"full_turns", policy.full_turns}, {"full", full}, {"one_line", one_line}, {"bytes_cut", bytes_cut}};
  return plan;
}

}  // namespace ptxbench

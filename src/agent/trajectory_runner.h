// One trajectory of a run, turn by turn: request (context policy) -> model reply -> extracted
// candidate -> judged through the CandidateService -> feedback -> next turn. Each turn is stored
// in two commits: the reply (with its candidate, phase "judging"), then its judgment (phase
// "done"); a resumed trajectory judges a stored-but-unjudged reply without calling the model and
// continues after the last stored turn. Infra errors are retried within the run's budget and
// never become turns; quota_exhausted stops the run.
#pragma once
#include <optional>
#include <vector>

#include "agent/context_policy.h"
#include "agent/run_context.h"

namespace ptxbench {

class TrajectoryRunner {
 public:
  // `stored`: this trajectory's turns already in the store, in turn order.
  TrajectoryRunner(RunContext& ctx, const ProblemPrompt& problem, int trajectory, std::vector<TurnRow> stored);
  void run();

 private:
  bool restore_history();
  bool next_turn(int turn);
  // The counted reply for `turn` (after retrying infra errors), or nullopt when the run stops.
  std::optional<ChatReply> counted_reply(int turn, const ContextPlan& plan, ModelCallRow* call);
  bool judge_and_finish(TurnRow& turn, const std::string& source);
  // With repair notes: the top-k notes for a failing turn appended to its feedback, and which were
  // shown (ids, scores, what the rules excluded) recorded in the turn's context.
  void add_repair_notes(TurnRow& turn, const EvaluationRecord& record, const ProblemSpec& spec,
                        const std::string& source) const;
  void remember(const TurnRow& turn, std::string reply);

  RunContext& ctx_;
  const ProblemPrompt& problem_;
  int trajectory_;
  std::vector<TurnRow> stored_;
  std::vector<TurnMemory> history_;
};

}  // namespace ptxbench

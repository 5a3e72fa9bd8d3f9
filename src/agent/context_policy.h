// What each request holds. Always: the system text (role + knowledge) and the problem statement.
// Then the last K turns in full (the model's reply as received and the exact feedback sent after
// it, as assistant/user messages); turns older than that as one line each (verdict, targets,
// speedup) appended to the problem statement. K = full_turns (-1: every turn in full). What was
// kept and what was cut to one line is recorded with every request.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "agent/clients/model_client.h"
#include "core/json.h"

namespace ptxbench {

struct TurnMemory {
  int turn = 0;          // 0-based
  std::string reply;     // the assistant's answer text
  std::string feedback;  // the feedback text sent after it
  std::string state;     // verdict, no_code or provider state
  std::optional<bool> target_executed;
  std::optional<double> speedup;
};

struct ContextPolicy {
  int full_turns = 3;  // K; -1 keeps every turn in full
  json to_json() const { return {{"full_turns", full_turns}}; }
};

struct ContextPlan {
  std::vector<ChatMessage> messages;  // user first, alternating, the last one the user's
  json record = json::object();       // {"full_turns", "full": [..], "one_line": [..], "bytes_cut": n}
};

ContextPlan build_context(const std::string& problem_text, const std::vector<TurnMemory>& history,
                          const ContextPolicy& policy);

}  // namespace ptxbench

// The feedback a model gets after each turn, rendered from the evaluation record by verdict:
// compiler diagnostics (first errors, in the candidate's own file "candidate.cu"), the forbidden
// reason, the runtime error, sanitizer findings, where and by how much the output is wrong, which
// target instruction groups were in the SASS and which executed (or "unknown"), speed per shape
// against the library, and for not_run that no GPU stage ran and why. Stage details are read
// tolerantly: a missing or oddly typed field leaves a line out, never crashes the renderer.
// The text is versioned (kFeedbackVersion is stored with every turn).
#pragma once
#include <optional>
#include <string>

#include "core/language.h"
#include "core/record.h"
#include "problems/problem_spec.h"

namespace ptxbench {

inline constexpr const char* kFeedbackVersion = "feedback/1";

struct FeedbackContext {
  const ProblemSpec* problem = nullptr;  // targets, dims, baseline name (may be null: then generic)
  int turn = 0;                          // 0-based; shown 1-based ("turn 3 of 8")
  int turns = 0;                         // the trajectory's budget
  bool reused = false;                   // an identical file was judged earlier in this run: not re-judged
  std::optional<int> reused_from_turn;   // ... in this trajectory, at this turn (0-based)
  Language language = Language::cuda;    // the reply format asked for (a record's own language wins)
};

std::string render_feedback(const EvaluationRecord& record, const FeedbackContext& context);

// Turns without a judged kernel: no_code, or a provider state (refused, truncated without code,
// reasoning_only, empty, request_too_large, provider_error).
std::string render_no_kernel_feedback(const std::string& state, const std::string& provider_outcome,
                                      const std::string& provider_error, const std::string& extraction_rule,
                                      const FeedbackContext& context);

// One line for an older turn in a request (the context policy): "turn 2: correct, targets executed, 0.84x".
std::string one_line_summary(int turn, const std::string& state, std::optional<bool> target_executed,
                             std::optional<double> speedup);

// Build paths (the candidate's temporary file, the build folder) replaced by names the model
// knows: the candidate is "candidate.cu", other files keep their base name.
std::string map_build_paths(const std::string& text, const EvaluationRecord& record);

}  // namespace ptxbench

// The recorded replies of a run, read back for the replay: client: from a JSONL export
// (run_export.h) or from a workspace database (a folder holding ptxbench.db, or the .db file).
// Keyed by (problem, trajectory, turn), 0-based, counted turns only.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "store/workspace_db.h"

namespace ptxbench {

struct RecordedReply {
  std::string outcome;  // ProviderOutcome name
  std::string content, reasoning, finish_reason, model, error;
  std::optional<long long> input_tokens, output_tokens, reasoning_tokens;
  int http_status = 0;
  double seconds = 0;
  std::string response_body;
};

using TurnKey = std::tuple<std::string, int, int>;  // problem, trajectory, turn

struct RecordedRun {
  std::string run_id;
  std::string source;  // where it was read from, for messages
  std::map<TurnKey, RecordedReply> replies;
};

// `run_id` may be empty when the source holds exactly one run; otherwise the failure lists them.
DbStatus read_recorded_run(const std::filesystem::path& path, const std::string& run_id, RecordedRun* out);

}  // namespace ptxbench

// The run store's typed rows (store/run_store.h reads and writes them; run_columns.h names their
// columns; the turn's are declared in turn_row.h). Trajectory and turn are 0-based here, as in the database.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "store/turn_row.h"

namespace ptxbench {

struct RunInfo {
  std::string id;
  std::string created_at, updated_at;
  std::string status = "running";  // running, complete, stopped
  std::string stop_reason;
  std::string model;  // PROVIDER:MODEL as given
  std::string arch;
  std::string knowledge;  // "params,ptx,contract" or "none"
  std::vector<std::string> problems;
  int trajectories = 0, turns = 0;   // the budget: trajectories per problem x counted turns each
  std::string identity_sha256;       // the part of the config that makes it "the same run"
  json config = json::object();      // the resolved run config
  json provenance = json::object();  // harness version/commit, nvcc, GPU, renderer versions
};

struct ModelCallRow {
  long long id = 0;
  std::string run_id, problem;
  int trajectory = 0, turn = 0, attempt = 0;  // attempt: 0-based per turn, uncounted ones included
  std::string started_at;
  double seconds = 0;
  std::string outcome;  // ProviderOutcome name
  std::string finish_reason, model, error;
  int http_status = 0, attempts = 0;
  json retries = json::array();
  std::optional<long long> input_tokens, output_tokens, reasoning_tokens;
  std::string request_bytes;          // exact bytes sent; the canonical request JSON when the client sent none
  bool request_is_canonical = false;  // request_bytes is our JSON, not a provider's wire body
  json request = json::object();      // {"system_sha256", "messages", "options"}: what the model was given
  std::string system_text;            // stored once per distinct text (blobs), referenced by sha256
  std::string response_bytes;         // exact bytes received (empty for clients that receive none)
  std::string content, reasoning;
};

// TurnRow: store/turn_row.h, where its fields are declared.

struct TrajectoryRow {
  std::string run_id, problem;
  int trajectory = 0, turns_done = 0;
  std::string status;  // open, complete
};

struct RunEvent {
  long long id = 0;
  std::string run_id, at, kind, message;
  std::string problem;
  int trajectory = -1, turn = -1;  // -1: not about one turn
};

}  // namespace ptxbench

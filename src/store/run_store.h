// The run store: everything `ptxbench run` does, in the workspace database next to the
// evaluations table (same SQLite file, same connection, so a turn and its evaluation commit in one
// transaction). Tables (docs/architecture.md, "Run store"):
//   runs             one row per run: resolved config, identity hash, provenance, status
//   trajectories     (run, problem, trajectory): counted turns done, open/complete
//   model_calls      every model call, counted or not (infra errors and quota stops too)
//   turns            (run, problem, trajectory, turn): the counted turn, phase judging -> done
//   candidates       content-addressed candidate sources (sha256 -> bytes)
//   blobs            content-addressed texts: exact request/response bytes, system prompts
//   turn_evaluations every judgment of a turn's candidate (the turn's own, later rescores)
//   run_events       starts, stops, retries, infra errors, store failures: never silent
// Errors at this boundary are DbStatus values. Every method is thread-safe.
#pragma once
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/record.h"
#include "store/workspace_db.h"

namespace ptxbench {

struct RunInfo {
  std::string id;
  std::string created_at, updated_at;
  std::string status = "running";  // running, complete, stopped
  std::string stop_reason;
  std::string model;                // PROVIDER:MODEL as given
  std::string arch;
  std::string knowledge;            // "params,ptx,contract" or "none"
  std::vector<std::string> problems;
  int trajectories = 0, turns = 0;  // the budget: trajectories per problem x counted turns each
  std::string identity_sha256;      // the part of the config that makes it "the same run"
  json config = json::object();     // the resolved run config
  json provenance = json::object(); // harness version/commit, nvcc, GPU, renderer versions
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

struct TurnRow {
  std::string run_id, problem;
  int trajectory = 0, turn = 0;  // 0-based
  std::string phase = "done";    // "judging": reply stored, candidate not judged yet; "done"
  std::string state;             // verdict name, "no_code", a provider outcome, or "pending"
  std::string provider_outcome;
  long long model_call_id = 0;
  std::optional<std::string> candidate_sha256;
  json extraction = json::object();
  std::optional<long long> evaluation_id;
  bool reused_evaluation = false;  // an identical candidate's evaluation in this run was reused
  std::optional<std::string> verdict;
  std::optional<bool> target_static, target_executed, target_correct;
  std::optional<double> speedup_geomean;
  std::string feedback, feedback_version;
  json context = json::object();  // what the request held: full turns, one-line turns
  std::optional<long long> input_tokens, output_tokens, reasoning_tokens;
  long long reasoning_chars = 0;
  std::optional<double> cost_usd;
  double model_seconds = 0, compile_wait_seconds = 0, prepare_seconds = 0, build_seconds = 0, gpu_wait_seconds = 0,
         gpu_seconds = 0;
  std::string started_at, replied_at, finished_at;
};

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

class RunStore {
 public:
  // Opens (creating if needed) the workspace database at `path`; check status() before use.
  explicit RunStore(const std::filesystem::path& path);
  const DbStatus& status() const { return status_; }
  WorkspaceDb& evaluations() { return db_; }  // the evaluations table (ptxbench eval's API)

  // Creates the run, or reopens it when `wanted.id` exists with the same identity hash (then the
  // budget and config are updated to `wanted`'s and the status set to running). A different
  // identity is a failure naming both. Ensures every trajectory row exists.
  DbStatus open_run(const RunInfo& wanted, RunInfo* actual, bool* created);
  DbStatus set_run_status(const std::string& run_id, const std::string& status, const std::string& reason);
  DbStatus set_provenance(const std::string& run_id, const json& provenance);
  DbStatus get_run(const std::string& run_id, RunInfo* out);
  DbStatus list_runs(std::vector<RunInfo>* out);  // newest first

  // A model call that is not a turn (infra_error, quota_exhausted, a client fault).
  DbStatus record_model_call(ModelCallRow& call);
  // One transaction: the model call, the candidate (when one was extracted) and the turn row.
  // A turn stored with phase "done" (no candidate) also advances its trajectory.
  DbStatus store_reply(ModelCallRow& call, TurnRow& turn, const std::string* candidate_source);
  // One transaction: the evaluation (when `record` is given; else turn.evaluation_id is reused),
  // the turn's verdict and feedback (phase done), its turn_evaluations row, its trajectory.
  DbStatus finish_turn(TurnRow& turn, const EvaluationRecord* record);
  // A later judgment of a done turn's candidate (rescore): the new evaluation (inserted when
  // `record` is given, else turn.evaluation_id is one inserted for an identical turn) becomes the
  // turn's, with the verdict columns the caller set; the feedback the model saw stays.
  DbStatus rescore_turn(TurnRow& turn, const EvaluationRecord* record);

  DbStatus load_turns(const std::string& run_id, std::vector<TurnRow>* out);  // by problem, trajectory, turn
  DbStatus load_trajectories(const std::string& run_id, std::vector<TrajectoryRow>* out);
  DbStatus load_model_call(long long id, ModelCallRow* out);  // with request/response bytes and system text
  DbStatus load_reply_content(long long model_call_id, std::string* content);  // the answer text only
  DbStatus count_model_calls(const std::string& run_id, const std::string& problem, int trajectory, int turn, int* out);
  DbStatus candidate_source(const std::string& sha256, std::string* out);
  DbStatus evaluation(long long id, EvaluationRecord* out);

  DbStatus add_event(const RunEvent& e);
  DbStatus load_events(const std::string& run_id, std::vector<RunEvent>* out);

 private:
  DbStatus put_blob(const std::string& bytes, std::string* sha256);
  DbStatus get_blob(const std::string& sha256, std::string* out);
  DbStatus insert_model_call(ModelCallRow& call);
  DbStatus write_turn(const TurnRow& t, bool insert);
  DbStatus refresh_trajectory(const TurnRow& t);
  DbStatus link_evaluation(const TurnRow& t, const std::string& kind);

  WorkspaceDb db_;
  sqlite3* h_ = nullptr;
  DbStatus status_;
  std::recursive_mutex mutex_;
};

}  // namespace ptxbench

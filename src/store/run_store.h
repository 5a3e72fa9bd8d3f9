// The run store: everything `ptxbench run` does, in the workspace database next to the
// evaluations table (same SQLite file, same connection, so a turn and its evaluation commit in one
// transaction). Tables (docs/store.md):
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
#include "store/run_rows.h"
#include "store/workspace_db.h"

namespace ptxbench {

class RunStore {
 public:
  // Opens (creating if needed) the workspace database at `path` and brings the run store's tables up
  // to date (schema_migrations.h); check status() before use.
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

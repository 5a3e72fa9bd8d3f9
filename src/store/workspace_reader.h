// A workspace database read without writing to it (`ptxbench report`): its runs, their
// trajectories' status and their turns with what their evaluations say, as the run store's typed
// rows. It never migrates: a database from an older ptxbench is read as it is, and one that a
// newer ptxbench wrote (a schema migration this build does not know) is refused, saying so.
// Errors are DbStatus values whose text names the file.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/run_rows.h"
#include "store/workspace_db.h"

struct sqlite3;

namespace ptxbench {

// A turn as a report reads it: every declared field the table has (store/turn_row.h), the payloads
// (feedback, context, extraction) with the drill-down only.
struct ReportedTurn {
  TurnRow turn;
  std::string gpu;                         // its evaluation's GPU ("" without an evaluation)
  std::optional<bool> target_seen;         // its evaluation record's target_seen, where it has one
  std::optional<long long> record_schema;  // its evaluation record's schema number
  // With the drill-down only:
  std::string source;                      // the candidate's source ("" without one)
  std::optional<std::string> record_json;  // its evaluation record (nullopt without an evaluation)
};

// What the evaluations of a run's turns record about the environment (the first that records a
// seed policy).
struct RunEnvironment {
  std::optional<std::string> seed_policy, driver;
};

class WorkspaceReader {
 public:
  // Opens `file` read-only; status() says why it cannot be read: it cannot be opened, a newer
  // ptxbench wrote it, or it holds no run store (only `ptxbench eval` results).
  explicit WorkspaceReader(const std::filesystem::path& file);
  ~WorkspaceReader();
  WorkspaceReader(const WorkspaceReader&) = delete;
  WorkspaceReader& operator=(const WorkspaceReader&) = delete;
  const DbStatus& status() const { return status_; }

  DbStatus runs(std::vector<RunInfo>* out);  // oldest first (created_at, id)
  DbStatus run_environment(const std::string& run_id, RunEnvironment* out);
  DbStatus trajectories(std::vector<TrajectoryRow>* out);
  // Every stored turn, by run, problem, trajectory and turn, handed to `each` as it is read;
  // `detail`: with the payloads, the candidate's source and the evaluation record.
  DbStatus turns(bool detail, const std::function<void(ReportedTurn&)>& each);

 private:
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
  DbStatus status_;
};

}  // namespace ptxbench

// The Fixit tables, in the workspace database beside the runs (store owns every table's schema):
//   fixit_builds    one row per build: the recipe (its bytes), the teacher, the sources, status
//   fixit_items     every turn the selection looked at: its status (pending, record, dropped,
//                   refused, skipped) and why, its error class and signature, its context
//   fixit_attempts  every try at an item's fix: a trajectory turn judged again, a teacher's fix (its
//                   exact request and response bytes, tokens, cost) and the judgment of it, a
//                   teacher's explanation of a verified fix
//   fixit_records   the records, with whether post-balancing kept them in the dataset
// A teacher's reply is stored (phase "replied") before it is judged, and a judgment with its
// evaluation in one transaction (phase "judged"), so a build killed at any moment repeats no paid
// teacher call that came back and loses no record. The rows' fields: store/fixit_rows.h. Errors are
// DbStatus values; thread-safe.
#pragma once
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/record.h"
#include "store/fixit_rows.h"
#include "store/run_store.h"

namespace ptxbench {

class FixitStore {
 public:
  // Whether the database at `db_path` holds any Fixit build (read-only: creates nothing).
  static bool has_builds(const std::filesystem::path& db_path);
  explicit FixitStore(const std::filesystem::path& db_path);
  const DbStatus& status() const { return status_; }

  // Creates the build, or reopens it (same id): the status set to running. `created` says which.
  DbStatus open_build(const FixitBuildRow& wanted, FixitBuildRow* actual, bool* created);
  DbStatus finish_build(const std::string& id, const std::string& status, const std::string& stop_reason,
                        const json& summary);
  DbStatus get_build(const std::string& id, FixitBuildRow* out);
  DbStatus list_builds(std::vector<FixitBuildRow>* out);  // newest first

  DbStatus insert_items(const std::vector<FixitItemRow>& items);  // one transaction, at a build's creation
  DbStatus load_items(const std::string& build_id, std::vector<FixitItemRow>* out);
  DbStatus set_item_status(const std::string& build_id, const std::string& key, const std::string& status,
                           const std::string& reason, const std::string& fix_source);

  // A new attempt (a teacher's reply, a trajectory turn, an explanation): request and response
  // bytes into blobs, the candidate into candidates.
  DbStatus insert_attempt(FixitAttemptRow& a);
  // The attempt's judgment: the evaluation inserted (when given) and the attempt updated, together.
  DbStatus judge_attempt(FixitAttemptRow& a, const EvaluationRecord* record);
  DbStatus load_attempts(const std::string& build_id, const std::string& key, std::vector<FixitAttemptRow>* out);
  DbStatus load_all_attempts(const std::string& build_id, std::vector<FixitAttemptRow>* out);

  // The record and its item's status (record), together.
  DbStatus store_record(const std::string& build_id, const std::string& key, const json& record,
                        const std::string& fix_source);
  DbStatus load_records(const std::string& build_id, std::vector<FixitRecordRow>* out);
  DbStatus set_record_inclusion(const std::string& build_id, const std::string& key, bool in_dataset,
                                const std::string& reason);

  DbStatus evaluation(long long id, EvaluationRecord* out);
  DbStatus candidate_source(const std::string& sha256, std::string* out);

 private:
  RunStore runs_;  // the run schema (candidates, blobs) and the connection
  sqlite3* h_ = nullptr;
  DbStatus status_;
  std::mutex mutex_;
};

}  // namespace ptxbench

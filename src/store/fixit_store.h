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
// teacher call that came back and loses no record. Errors are DbStatus values; thread-safe.
#pragma once
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/record.h"
#include "store/run_store.h"

namespace ptxbench {

struct FixitBuildRow {
  std::string id, created_at, updated_at;
  std::string status = "running";  // running, complete, stopped
  std::string stop_reason;
  std::string recipe_name, recipe_sha256, recipe_text;
  std::string template_kind, teacher;  // teacher: PROVIDER:MODEL or ""
  json config = json::object();        // the resolved recipe, the sources, the harness, the options
  json summary = json::object();       // the last invocation's counts
};

struct FixitItemRow {
  std::string build_id, item_key;
  int ordinal = 0;  // within its problem, in selection order (the teacher's trajectory number)
  std::string problem, split, template_kind, error_class, signature;
  std::string status;  // pending, record, dropped, refused, skipped
  std::string reason;
  std::string kernel_hash;
  std::string fix_source;         // trajectory, teacher ("" until a record)
  json source = json::object();   // run, problem, trajectory, turn, where it was read, later fix turns
  json context = json::object();  // system, problem_prompt, failed_reply, failing_kernel, feedback, ...
  json error = json::object();    // the error class's detail
};

struct FixitAttemptRow {
  std::string build_id, item_key;
  int attempt = 0;             // 0-based over every attempt of the item
  std::string kind;            // trajectory, teacher, explain
  int teacher_index = -1;      // teacher: its 0-based number among the item's teacher fixes
  std::string phase;           // replied (teacher reply stored, not judged), judged, done (explain, trajectory)
  std::string prompt_version;  // fixit-teacher/1, fixit-explain/1; "" for a trajectory turn
  std::string source_turn;     // trajectory: the later turn's address
  std::string model, outcome, finish_reason, error;
  int http_status = 0;
  double seconds = 0;
  std::optional<long long> input_tokens, output_tokens, reasoning_tokens;
  std::optional<double> cost_usd;
  json request = json::object();  // {"system_sha256", "messages", "options"}
  std::string request_bytes, response_bytes, system_text;
  std::string content, reasoning;
  std::optional<std::string> candidate_sha256;
  std::string candidate;  // the fix's source (in)
  std::optional<long long> evaluation_id;
  std::string verdict;
  bool accepted = false;
  std::string why;          // why it was not accepted ("" when it was)
  std::string explanation;  // the prose kept
  std::string feedback;     // the feedback rendered from its evaluation (a retry shows it to the teacher)
};

struct FixitRecordRow {
  std::string build_id, item_key, created_at;
  json record = json::object();
  bool in_dataset = true;
  std::string excluded_reason;  // post-balancing cut
};

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

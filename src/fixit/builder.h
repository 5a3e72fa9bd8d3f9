// `ptxbench fixit build`: from the runs' turns to judged Fixit records (docs/fixit.md).
//   1. read every source's turns (source_turns.h) and select the items (selection.h); the build's id
//      is the recipe, the teacher and the exact turns read, so the same command resumes the same
//      build, whose selection is stored once and never redrawn;
//   2. fix each pending item, several at once (--parallel), in the order of preference: a later turn
//      of its own trajectory that fixed it, judged again now; else the teacher's fix, judged, with up
//      to `attempts` tries, each retry shown the previous fix's feedback; an explanation comes from the
//      fixing reply's own prose, else from the teacher (fixit-explain/1);
//   3. every fix is judged by the harness (the CandidateService: the service engine by default)
//      before it becomes a record; a fix that is not one (fix_rule.h) is retried, then the item is
//      dropped with its reason; a judgment that says nothing (infra_error, no GPU stage) leaves the
//      item pending for the next invocation;
//   4. post-balancing (recipe balance "post") marks records in or out of the dataset.
// A teacher's reply is stored before it is judged, so killing the build (even kill -9) repeats no
// teacher call that came back; items in flight are simply taken up again.
#pragma once
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "agent/clients/model_client.h"
#include "agent/run_config.h"
#include "fixit/recipe.h"
#include "fixit/selection.h"
#include "service/candidate_service.h"
#include "store/fixit_store.h"

namespace ptxbench::fixit {

struct TeacherSetup {
  ModelClient* client = nullptr;      // nullptr: no teacher (trajectory fixes only)
  std::string spec;                   // PROVIDER:MODEL as given
  json args = json::object();         // the client's options (recorded; keys are never in them)
  std::optional<TokenPrices> prices;  // for the cost of each call
};

struct BuildOptions {
  std::vector<std::string> sources;      // --runs, as given (recorded with the build)
  std::filesystem::path knowledge_root;  // to rebuild a system text an export did not keep
  std::string build_name;                // "" -> "<recipe>-<12 hex of the identity>"
  int parallel = 8;                      // items in flight
  int max_infra_errors = 10;             // teacher or judge infra errors in one invocation before it stops
  bool interactive = false;              // redraw the progress line in place
};

struct BuildOutcome {
  std::string build_id;
  bool created = false;
  std::string status;  // complete, stopped
  std::string stop_reason;
  GpuDescription gpu;
  long long turns_read = 0;
  std::map<std::string, long long> items;    // by status
  std::map<std::string, long long> reasons;  // dropped, refused and skipped items by reason kind
  long long records = 0, records_in_dataset = 0, new_records = 0;
  long long teacher_calls = 0, infra_errors = 0;
  double teacher_cost_usd = 0, seconds = 0;
  json to_json() const;
};

class Builder {
 public:
  Builder(FixitStore& store, CandidateService& service, const Recipe& recipe, const SuiteSplits& suite,
          std::map<std::string, const ProblemSpec*> problems, TeacherSetup teacher, BuildOptions options,
          std::ostream& log);
  ~Builder();
  // `turns`: every source's turns (load_source_turns), as read.
  BuildOutcome run(const std::vector<SourceTurn>& turns);
  // From a signal handler's thread: no new teacher call or judgment starts; items in flight finish.
  void request_stop(const std::string& why);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The build's identity: the recipe's bytes, the teacher and its options, and every turn read (its
// address, candidate and state), hashed.
std::string build_identity(const Recipe& recipe, const TeacherSetup& teacher, const std::vector<SourceTurn>& turns);

}  // namespace ptxbench::fixit

// The in-memory model every metric and report works on: runs, and the turns of their trajectories,
// as plain rows. Loaders (load_jsonl.h, load_workspace.h) fill it; nothing here knows a file format.
// docs/metrics.md defines each field and how the metrics read it.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "store/turn_row.h"

namespace ptxbench::metrics {

// What a turn ended in: a verdict of the evaluator, or a provider / agent state.
enum class TurnState {
  compile_error,
  forbidden,
  runtime_error,
  sanitizer_error,
  incorrect,
  correct,  // judged
  no_code,
  truncated,
  refused,
  empty,
  reasoning_only,
  request_too_large,
  provider_error,  // the model's, no kernel
  infra_error,
  quota_exhausted,
  not_run,  // excluded: say nothing about the model
  pending,  // reply stored, not judged yet: missing
};
std::string_view to_string(TurnState s);
std::optional<TurnState> turn_state_from_string(std::string_view s);
std::string known_turn_states();  // "compile_error, forbidden, ..." for error messages

// Counted: the turn is in the denominators (the model's turn, judged or not answered with a kernel).
bool is_counted(TurnState s);
// Excluded: infra_error, quota_exhausted (harness or account failed), not_run (no GPU stage ran).
bool is_excluded(TurnState s);

struct ShapeResult {
  std::string shape;  // "M=4096 N=4096 K=4096"
  double speedup = 0;
  std::optional<double> median_ms, baseline_median_ms;
};

struct TurnRow {
  std::string run, model, arch, gpu, knowledge, problem, split;
  std::string language = "cuda";  // the run's candidates' language (cuda, triton)
  int trajectory = 0;             // as recorded; unique per (run, problem)
  int turn = 1;                   // 1-based
  TurnState state = TurnState::pending;
  // The turn's stored fields (store/turn_row.h: target_executed, speedup_geomean, the token counts,
  // reasoning_chars, feedback, ...), as far as the input carries them; a metric reads them here.
  // Its turn and trajectory are as stored (turn 0-based); state and identity are the fields above.
  // A speedup that is not > 0 is left out (nullopt). target_executed: nullopt: unknown.
  ptxbench::TurnRow stored;
  // The paper's looser flag: some target instruction executed (records of schema < 3, and inputs that
  // do not record it, give target_executed, which was that flag then).
  std::optional<bool> target_seen;
  std::vector<ShapeResult> shapes;
  bool finished = true;  // the trajectory this turn belongs to is complete
  // Drill-down only (HTML report): the candidate and why this verdict (the feedback: stored.feedback).
  std::string code, reason;

  bool correct() const { return state == TurnState::correct; }
  bool target_correct() const { return correct() && stored.target_executed.value_or(false); }
};

struct RunInfo {
  std::string id, model, arch, gpu, knowledge, suite, status;
  std::string language = "cuda";      // config.language; runs from before Triton are CUDA
  std::vector<std::string> problems;  // in the run's order (reports list problems in this order)
  int trajectories = 0, turns = 0;    // the budget: trajectories per problem, turns per trajectory
  json provenance = json::object();   // harness {version, commit, dirty}, nvcc, gpu, driver, seed_policy, ...
  std::string source;                 // the file or workspace it was read from
};

struct TurnSet {
  std::vector<RunInfo> runs;
  std::vector<TurnRow> turns;
  const RunInfo* run(const std::string& id) const;
  RunInfo* run(const std::string& id);
  void append(TurnSet other);  // a run id present in both is an InputError naming both sources
};

// The knowledge setting a run's turns are grouped by: its prompt components, and the repair notes
// its feedback carried (run config "repair_notes"), e.g. "params,ptx,contract+notes+kernel", so the
// knowledge ablation table compares the notes conditions side by side (the paper's Table 4).
std::string knowledge_condition(const std::string& knowledge, const json& run_config);

// Derives TurnRow::finished for runs whose loader could not tell: a trajectory is finished when
// it holds a stored, non-pending turn for every k in 1..run.turns.
void derive_finished(TurnSet& set, const std::string& run_id);

}  // namespace ptxbench::metrics

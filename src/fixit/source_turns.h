// The turns Fixit learns from, read from any run, wherever it is kept: a run id in the current
// workspace, a `runs export` JSONL file (ptxbench.turn/1), or another workspace (a folder holding
// ptxbench.db, or the .db file), optionally with "#RUN" to pick one of its runs. A run of the
// current workspace by the spec's name comes first. Every turn reads
// the same way: a workspace's turns go through the exporter's own turn object (store/run_export.h),
// so the two sources cannot drift apart.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/record.h"

namespace ptxbench::fixit {

struct SourceTurn {
  std::string source;  // what was read ("ws.db#run", "run.jsonl:12")
  std::string run, model, arch, knowledge;
  std::string language = "cuda";     // the run's config.language (runs from before Triton are CUDA)
  json provenance = json::object();  // the run's: harness {version, commit, dirty}, gpu, ...
  std::string problem, split;        // split from the run's suite ("" without one)
  int trajectory = 0, turn = 0;      // 0-based
  std::string phase, state;
  std::optional<EvaluationRecord> evaluation;  // the turn's judgment (the latest, after a rescore)
  std::string candidate_sha256, candidate;     // empty without a candidate
  std::string reply;                           // the model's answer text
  std::string feedback, feedback_version;
  json request = json::object();  // {"system_sha256", "messages", ...} as sent
  std::string system;             // the system text as sent; empty when the source did not keep it
  std::optional<double> cost_usd;
  json tokens = json::object();

  std::string address() const;  // "run/problem/trajectory/turn"
};

// Throws InputError naming the source and what is wrong (no such run, a malformed line).
std::vector<SourceTurn> load_source_turns(const std::string& spec, const std::filesystem::path& workspace_db);

// One exported turn object (ptxbench.turn/1) as a SourceTurn; `where` names it in errors.
SourceTurn source_turn_from_export(const json& j, const std::string& where);

}  // namespace ptxbench::fixit

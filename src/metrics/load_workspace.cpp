// Loads runs and turns from a workspace database through the store's read-only reader.
#include "metrics/load_workspace.h"

#include <map>
#include <tuple>

#include "core/error.h"
#include "store/workspace_reader.h"

namespace ptxbench::metrics {
namespace {

json parse_json(const std::string& s, const std::string& where) {
  json j = json::parse(s, nullptr, false);
  if (j.is_discarded()) throw InputError(where + " is not JSON");
  return j;
}

std::string workspace_shape_label(const json& shape) {
  std::string s;
  if (shape.is_object())
    for (const auto& [k, v] : shape.items())
      s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

void check(const DbStatus& s) {
  if (!s.ok) throw InputError(s.error);
}

}  // namespace

TurnSet load_workspace(const std::filesystem::path& path, const LoadOptions& options) {
  const auto file = std::filesystem::is_directory(path) ? path / "ptxbench.db" : path;
  if (!std::filesystem::exists(file)) throw InputError("no workspace database at " + file.string());
  WorkspaceReader db(file);
  check(db.status());
  TurnSet set;
  std::map<std::string, json> splits;
  std::vector<ptxbench::RunInfo> stored_runs;
  check(db.runs(&stored_runs));
  for (auto& stored : stored_runs) {
    if (!options.wanted(stored.id)) continue;
    RunInfo r;
    r.id = stored.id, r.model = stored.model, r.arch = stored.arch;
    r.problems = std::move(stored.problems);
    r.trajectories = stored.trajectories, r.turns = stored.turns;
    r.status = stored.status;
    const json& config = stored.config;
    r.provenance = std::move(stored.provenance);
    // The agent records {"name": "none", "gpu_stages": false} when no GPU stage ran.
    if (r.provenance.contains("gpu") && r.provenance["gpu"].is_object() &&
        r.provenance["gpu"].value("gpu_stages", true))
      r.gpu = r.provenance["gpu"].value("name", "");
    r.knowledge = knowledge_condition(stored.knowledge, config);
    if (config.is_object()) {
      r.suite = config.value("suite", "");
      if (config.contains("language") && config["language"].is_string())
        r.language = config["language"].get<std::string>();
      if (config.contains("splits") && config["splits"].is_object()) splits[r.id] = config["splits"];
    }
    r.source = file.string();
    set.runs.push_back(std::move(r));
  }
  // What the run's provenance lacks and its evaluation records carry (the evaluator stores the seed
  // policy and the NVML driver version in each record's environment).
  for (auto& r : set.runs) {
    if (r.provenance.contains("seed_policy") && r.provenance.contains("nvml_driver")) continue;
    RunEnvironment env;
    check(db.run_environment(r.id, &env));
    if (!r.provenance.contains("seed_policy") && env.seed_policy) r.provenance["seed_policy"] = *env.seed_policy;
    if (!r.provenance.contains("nvml_driver") && env.driver) r.provenance["nvml_driver"] = *env.driver;
  }
  // (run, problem, trajectory) -> complete
  std::map<std::tuple<std::string, std::string, int>, bool> complete;
  std::vector<TrajectoryRow> trajectories;
  check(db.trajectories(&trajectories));
  for (const auto& t : trajectories) complete[{t.run_id, t.problem, t.trajectory}] = t.status == "complete";
  check(db.turns(options.with_detail, [&](ReportedTurn& stored) {
    const ptxbench::TurnRow& s = stored.turn;  // moved into t.stored below
    const RunInfo* info = set.run(s.run_id);
    if (!info) return;  // not selected
    TurnRow t;
    t.run = s.run_id;
    t.problem = s.problem;
    t.trajectory = s.trajectory;
    t.turn = s.turn + 1;  // the store numbers turns from 0
    const std::string where = file.string() + ": turn " + std::to_string(t.turn - 1) + " of run '" + t.run + "', " +
                              t.problem + " trajectory " + std::to_string(t.trajectory);
    if (s.phase != "done" || s.state == "pending") t.state = TurnState::pending;
    else if (auto st = turn_state_from_string(s.state)) t.state = *st;
    else throw InputError(where + ": unknown state '" + s.state + "' (known: " + known_turn_states() + ")");
    if (stored.target_seen) t.target_seen = stored.target_seen;
    else if (stored.record_schema.value_or(0) < 3) t.target_seen = s.target_executed;
    t.stored = std::move(stored.turn);
    if (t.stored.speedup_geomean && !(*t.stored.speedup_geomean > 0)) t.stored.speedup_geomean.reset();
    t.gpu = stored.gpu;
    if (t.gpu.empty()) t.gpu = info->gpu;
    t.model = info->model, t.arch = info->arch, t.knowledge = info->knowledge, t.language = info->language;
    if (auto it = splits.find(t.run);
        it != splits.end() && it->second.contains(t.problem) && it->second[t.problem].is_string())
      t.split = it->second[t.problem].get<std::string>();
    auto c = complete.find({t.run, t.problem, t.trajectory});
    t.finished = c != complete.end() && c->second;
    if (options.with_detail) {
      t.code = std::move(stored.source);
      if (stored.record_json) {
        const json rec = parse_json(*stored.record_json, where + ": its evaluation's record_json");
        t.reason = rec.value("reason", "");
        if (rec.contains("timing") && rec["timing"].is_array())
          for (const auto& sh : rec["timing"]) {
            ShapeResult r;
            r.shape = workspace_shape_label(sh.value("shape", json::object()));
            r.speedup = sh.value("speedup", 0.0);
            if (sh.value("median_ms", 0.0) > 0) r.median_ms = sh.value("median_ms", 0.0);
            if (sh.value("baseline_median_ms", 0.0) > 0) r.baseline_median_ms = sh.value("baseline_median_ms", 0.0);
            t.shapes.push_back(std::move(r));
          }
      }
    }
    set.turns.push_back(std::move(t));
  }));
  return set;
}

}  // namespace ptxbench::metrics

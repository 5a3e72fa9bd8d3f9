// Reads the turns Fixit learns from out of a run id, a `runs export` JSONL file or another workspace.
#include "fixit/source_turns.h"

#include <fstream>

#include "core/error.h"
#include "store/run_export.h"
#include "store/run_store.h"
#include "core/json_integer.h"

namespace ptxbench::fixit {
namespace fs = std::filesystem;
namespace {

std::string str(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) throw InputError(where + ": field '" + key + "' must be a string");
  return it->get<std::string>();
}
int integer(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) throw InputError(where + ": field '" + key + "' must be an integer");
  return json_integer<int>(*it, where + ": field '" + key + "'");
}
std::string opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// Every run of a workspace, or the one named.
std::vector<SourceTurn> from_workspace(const fs::path& db, const std::string& run_id, const std::string& label) {
  RunStore store(db);
  if (!store.status().ok) throw InputError(label + ": " + store.status().error);
  std::vector<RunInfo> runs;
  if (run_id.empty()) {
    if (auto s = store.list_runs(&runs); !s.ok) throw InputError(label + ": " + s.error);
  } else {
    RunInfo run;
    if (auto s = store.get_run(run_id, &run); !s.ok) {
      std::vector<RunInfo> all;
      store.list_runs(&all);
      std::string known;
      for (const auto& r : all) known += (known.empty() ? "" : ", ") + r.id;
      throw InputError(label + ": no run '" + run_id + "' (runs there: " + (known.empty() ? "none" : known) + ")");
    }
    runs.push_back(run);
  }
  std::vector<SourceTurn> out;
  ExportOptions options;
  options.request_bodies = true;  // the system text as sent
  for (const auto& run : runs) {
    std::vector<TurnRow> turns;
    if (auto s = store.load_turns(run.id, &turns); !s.ok) throw InputError(label + ": " + s.error);
    for (const auto& t : turns) {
      const std::string where =
          label + "#" + run.id + "/" + t.problem + "/" + std::to_string(t.trajectory) + "/" + std::to_string(t.turn);
      ModelCallRow call;
      if (auto s = store.load_model_call(t.model_call_id, &call); !s.ok) throw InputError(where + ": " + s.error);
      std::string source;
      if (t.candidate_sha256)
        if (auto s = store.candidate_source(*t.candidate_sha256, &source); !s.ok)
          throw InputError(where + ": " + s.error);
      EvaluationRecord record;
      if (t.evaluation_id)
        if (auto s = store.evaluation(*t.evaluation_id, &record); !s.ok) throw InputError(where + ": " + s.error);
      const json j = turn_export_object(run, t, call, t.candidate_sha256 ? &source : nullptr,
                                        t.evaluation_id ? &record : nullptr, 0, options);
      out.push_back(source_turn_from_export(j, where));
    }
  }
  return out;
}

std::vector<SourceTurn> from_jsonl(const fs::path& file, const std::string& run_id) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot read " + file.string());
  std::vector<SourceTurn> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = file.string() + ":" + std::to_string(n);
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw InputError(where + ": not a JSON object (a `runs export --jsonl` file has one per line)");
    if (opt_str(j, "format") != kTurnExportFormat)
      throw InputError(where + ": format '" + opt_str(j, "format") + "' is not " + kTurnExportFormat +
                       " (make the file with `ptxbench runs export RUN --jsonl`)");
    SourceTurn t = source_turn_from_export(j, where);
    if (!run_id.empty() && t.run != run_id) continue;
    out.push_back(std::move(t));
  }
  if (!run_id.empty() && out.empty()) throw InputError(file.string() + ": no turn of run '" + run_id + "'");
  return out;
}

}  // namespace

std::string SourceTurn::address() const {
  return run + "/" + problem + "/" + std::to_string(trajectory) + "/" + std::to_string(turn);
}

SourceTurn source_turn_from_export(const json& j, const std::string& where) {
  SourceTurn t;
  t.source = where;
  const auto run_it = j.find("run");
  if (run_it == j.end() || !run_it->is_object()) throw InputError(where + ": field 'run' must be an object");
  const json& run = *run_it;
  t.run = str(run, "id", where + ": run");
  t.model = opt_str(run, "model");
  t.arch = str(run, "arch", where + ": run");
  t.knowledge = opt_str(run, "knowledge");
  if (run.contains("config") && run["config"].is_object() && run["config"].contains("language") &&
      run["config"]["language"].is_string())
    t.language = run["config"]["language"].get<std::string>();
  if (run.contains("provenance") && run["provenance"].is_object()) t.provenance = run["provenance"];
  t.problem = str(j, "problem", where);
  t.split = opt_str(j, "split");
  t.trajectory = integer(j, "trajectory", where);
  t.turn = integer(j, "turn", where);
  t.phase = opt_str(j, "phase");
  t.state = opt_str(j, "state");
  if (j.contains("evaluation") && j["evaluation"].is_object()) {
    try {
      t.evaluation = record_from_json(j["evaluation"]);
    } catch (const InputError& e) {
      throw InputError(where + ": evaluation: " + e.what());
    }
  }
  if (j.contains("candidate") && j["candidate"].is_object()) {
    t.candidate_sha256 = opt_str(j["candidate"], "sha256");
    t.candidate = opt_str(j["candidate"], "source");
  }
  if (j.contains("reply") && j["reply"].is_object()) t.reply = opt_str(j["reply"], "content");
  t.feedback = opt_str(j, "feedback");
  t.feedback_version = opt_str(j, "feedback_version");
  if (j.contains("request") && j["request"].is_object()) {
    t.request = j["request"];
    t.system = opt_str(t.request, "system");
    t.request.erase("body");
    t.request.erase("system");
  }
  if (j.contains("cost_usd") && j["cost_usd"].is_number()) t.cost_usd = j["cost_usd"].get<double>();
  if (j.contains("tokens")) t.tokens = j["tokens"];
  return t;
}

std::vector<SourceTurn> load_source_turns(const std::string& spec, const fs::path& workspace_db) {
  if (spec.empty()) throw InputError("--runs: an empty entry (give a run id, a JSONL export, or a workspace)");
  const size_t hash = spec.rfind('#');
  const std::string path_part = hash == std::string::npos ? spec : spec.substr(0, hash);
  const std::string run_part = hash == std::string::npos ? "" : spec.substr(hash + 1);
  const fs::path p(path_part);
  // A run of the current workspace by that name comes first: a run id may also name a folder here.
  if (hash == std::string::npos && fs::is_regular_file(workspace_db)) {
    RunStore store(workspace_db);
    RunInfo run;
    if (store.status().ok && store.get_run(spec, &run).ok)
      return from_workspace(workspace_db, spec, "workspace " + workspace_db.parent_path().string());
  }
  if (fs::is_regular_file(p) && (p.extension() == ".jsonl" || p.extension() == ".json")) return from_jsonl(p, run_part);
  if (fs::is_regular_file(p) && p.extension() == ".db") return from_workspace(p, run_part, p.string());
  if (fs::is_directory(p) && fs::is_regular_file(p / "ptxbench.db"))
    return from_workspace(p / "ptxbench.db", run_part, p.string());
  if (fs::exists(p))
    throw InputError("--runs " + spec +
                     ": not a JSONL export (.jsonl), a workspace folder (holding ptxbench.db) or a .db file");
  if (!fs::is_regular_file(workspace_db))
    throw InputError("--runs " + spec + ": no such file or folder, and no workspace database at " +
                     workspace_db.string() + " to look the run up in");
  return from_workspace(workspace_db, spec, "workspace " + workspace_db.parent_path().string());
}

}  // namespace ptxbench::fixit

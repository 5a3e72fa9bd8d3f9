// Reads a run's recorded replies back for the replay: client, from a JSONL export or a workspace.
#include "store/recorded_replies.h"

#include <fstream>
#include <set>

#include "store/run_store.h"
#include "core/json_integer.h"

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

std::optional<long long> opt_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return json_integer<long long>(*it, key);
}

std::string list(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

DbStatus read_jsonl(const fs::path& path, const std::string& run_id, RecordedRun* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return DbStatus::failure("cannot read " + path.string());
  std::set<std::string> runs;
  std::map<std::string, std::map<TurnKey, RecordedReply>> by_run;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string at = path.string() + ":" + std::to_string(n);
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return DbStatus::failure(at + ": not a JSON object");
    try {
      if (j.value("format", "") != "ptxbench.turn/1")
        return DbStatus::failure(at + ": format is '" + j.value("format", "") +
                                 "', expected ptxbench.turn/1 (a 'ptxbench runs export --jsonl' line)");
      const std::string id = j.at("run").at("id").get<std::string>();
      runs.insert(id);
      const json& r = j.at("reply");
      RecordedReply rep;
      rep.outcome = r.at("outcome").get<std::string>();
      rep.content = r.at("content").get<std::string>();
      rep.reasoning = r.value("reasoning", "");
      rep.finish_reason = r.value("finish_reason", "");
      rep.model = r.value("model", "");
      rep.error = r.value("error", "");
      rep.http_status = r.value("http_status", 0);
      rep.seconds = r.value("seconds", 0.0);
      rep.response_body = r.value("response_body", "");
      if (r.contains("usage") && r["usage"].is_object()) {
        rep.input_tokens = opt_int(r["usage"], "input_tokens");
        rep.output_tokens = opt_int(r["usage"], "output_tokens");
        rep.reasoning_tokens = opt_int(r["usage"], "reasoning_tokens");
      }
      TurnKey key{j.at("problem").get<std::string>(), json_integer<int>(j.at("trajectory"), "trajectory"),
                  json_integer<int>(j.at("turn"), "turn")};
      if (!by_run[id].emplace(key, std::move(rep)).second)
        return DbStatus::failure(at + ": turn " + std::get<0>(key) + "/" + std::to_string(std::get<1>(key)) + "/" +
                                 std::to_string(std::get<2>(key)) + " of run " + id + " appears twice");
    } catch (const json::exception& e) {
      return DbStatus::failure(at + ": " + e.what());
    }
  }
  if (runs.empty()) return DbStatus::failure(path.string() + " holds no recorded turn");
  std::string chosen = run_id;
  if (chosen.empty()) {
    if (runs.size() > 1)
      return DbStatus::failure(path.string() + " holds several runs (" + list(runs) + "): pass --model-arg run=ID");
    chosen = *runs.begin();
  }
  if (!by_run.count(chosen))
    return DbStatus::failure(path.string() + " has no run '" + chosen + "' (it holds: " + list(runs) + ")");
  out->run_id = chosen;
  out->replies = std::move(by_run[chosen]);
  return {};
}

DbStatus read_database(const fs::path& db_path, const std::string& run_id, RecordedRun* out) {
  if (!fs::is_regular_file(db_path)) return DbStatus::failure("no workspace database at " + db_path.string());
  RunStore store(db_path);
  if (!store.status().ok) return store.status();
  std::vector<RunInfo> runs;
  if (auto s = store.list_runs(&runs); !s.ok) return s;
  std::set<std::string> ids;
  for (const auto& r : runs) ids.insert(r.id);
  if (ids.empty()) return DbStatus::failure(db_path.string() + " holds no run");
  std::string chosen = run_id;
  if (chosen.empty()) {
    if (ids.size() > 1)
      return DbStatus::failure(db_path.string() + " holds several runs (" + list(ids) + "): pass --model-arg run=ID");
    chosen = *ids.begin();
  }
  if (!ids.count(chosen))
    return DbStatus::failure(db_path.string() + " has no run '" + chosen + "' (it holds: " + list(ids) + ")");
  std::vector<TurnRow> turns;
  if (auto s = store.load_turns(chosen, &turns); !s.ok) return s;
  for (const auto& t : turns) {
    ModelCallRow c;
    if (auto s = store.load_model_call(t.model_call_id, &c); !s.ok) return s;
    RecordedReply rep{c.outcome, c.content,       c.reasoning,     c.finish_reason,    c.model,
                      c.error,   c.input_tokens,  c.output_tokens, c.reasoning_tokens, c.http_status,
                      c.seconds, c.response_bytes};
    out->replies.emplace(TurnKey{t.problem, t.trajectory, t.turn}, std::move(rep));
  }
  out->run_id = chosen;
  return {};
}

}  // namespace

DbStatus read_recorded_run(const fs::path& path, const std::string& run_id, RecordedRun* out) {
  out->source = path.string();
  if (fs::is_directory(path)) return read_database(path / "ptxbench.db", run_id, out);
  if (path.extension() == ".jsonl" || path.extension() == ".json") return read_jsonl(path, run_id, out);
  if (fs::is_regular_file(path)) return read_database(path, run_id, out);
  return DbStatus::failure("replay source " + path.string() +
                           " does not exist (give a .jsonl export, a workspace folder or its ptxbench.db)");
}

}  // namespace ptxbench

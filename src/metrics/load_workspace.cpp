#include "metrics/load_workspace.h"

#include <sqlite3.h>

#include <map>
#include <tuple>

#include "core/error.h"

namespace ptxbench::metrics {
namespace {

class Db {
 public:
  explicit Db(const std::filesystem::path& file) : file_(file) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw InputError("cannot open " + file.string() + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
    sqlite3_busy_timeout(db_, 5000);
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  bool has_table(const char* name) {
    auto st = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    const bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
  }
  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw InputError(file_.string() + ": its schema is not the run store this report reads (" + sqlite3_errmsg(db_) +
                       "; docs/metrics.md lists the tables and columns)");
    return st;
  }
  void done(sqlite3_stmt* st, int rc, const std::string& what) {
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) throw InputError(file_.string() + ": reading " + what + ": " + sqlite3_errmsg(db_));
  }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

std::string text(sqlite3_stmt* st, int col) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col))) : std::string();
}
std::optional<long long> opt_int(sqlite3_stmt* st, int col) {
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(st, col);
}
std::optional<double> opt_double(sqlite3_stmt* st, int col) {
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(st, col);
}

json parse_json(const std::string& s, const std::string& where) {
  json j = json::parse(s, nullptr, false);
  if (j.is_discarded()) throw InputError(where + " is not JSON");
  return j;
}

std::string shape_label(const json& shape) {
  std::string s;
  if (shape.is_object())
    for (const auto& [k, v] : shape.items()) s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

}  // namespace

TurnSet load_workspace(const std::filesystem::path& path, const LoadOptions& options) {
  const auto file = std::filesystem::is_directory(path) ? path / "ptxbench.db" : path;
  if (!std::filesystem::exists(file)) throw InputError("no workspace database at " + file.string());
  Db db(file);
  if (!db.has_table("runs") || !db.has_table("turns"))
    throw InputError(file.string() + " holds no runs (no 'runs'/'turns' tables: only 'ptxbench eval' results; run 'ptxbench run' first)");
  TurnSet set;
  std::map<std::string, json> splits;
  {
    auto st = db.prepare("SELECT id, model, arch, knowledge, problems, trajectories, turns, status, config_json, provenance_json "
                         "FROM runs ORDER BY created_at, id");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      RunInfo r;
      r.id = text(st, 0);
      if (!options.wanted(r.id)) continue;
      r.model = text(st, 1), r.arch = text(st, 2), r.knowledge = text(st, 3);
      const std::string problems = text(st, 4);
      for (size_t a = 0; a < problems.size();) {
        size_t b = problems.find(',', a);
        if (b == std::string::npos) b = problems.size();
        if (b > a) r.problems.push_back(problems.substr(a, b - a));
        a = b + 1;
      }
      r.trajectories = sqlite3_column_int(st, 5), r.turns = sqlite3_column_int(st, 6);
      r.status = text(st, 7);
      const json config = parse_json(text(st, 8), file.string() + ": runs.config_json of run '" + r.id + "'");
      r.provenance = parse_json(text(st, 9), file.string() + ": runs.provenance_json of run '" + r.id + "'");
      // The agent records {"name": "none", "gpu_stages": false} when no GPU stage ran.
      if (r.provenance.contains("gpu") && r.provenance["gpu"].is_object() && r.provenance["gpu"].value("gpu_stages", true))
        r.gpu = r.provenance["gpu"].value("name", "");
      r.knowledge = knowledge_condition(r.knowledge, config);
      if (config.is_object()) {
        r.suite = config.value("suite", "");
        if (config.contains("language") && config["language"].is_string()) r.language = config["language"].get<std::string>();
        if (config.contains("splits") && config["splits"].is_object()) splits[r.id] = config["splits"];
      }
      r.source = file.string();
      set.runs.push_back(std::move(r));
    }
    db.done(st, rc, "runs");
  }
  // What the run's provenance lacks and its evaluation records carry (the evaluator stores the seed
  // policy and the NVML driver version in each record's environment).
  for (auto& r : set.runs) {
    if (r.provenance.contains("seed_policy") && r.provenance.contains("nvml_driver")) continue;
    auto st = db.prepare("SELECT json_extract(e.record_json, '$.environment.seed_policy'), "
                         "json_extract(e.record_json, '$.environment.gpu_state_at_start.driver') "
                         "FROM turns t JOIN evaluations e ON e.id = t.evaluation_id WHERE t.run_id = ? "
                         "AND json_extract(e.record_json, '$.environment.seed_policy') IS NOT NULL LIMIT 1");
    sqlite3_bind_text(st, 1, r.id.c_str(), -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      if (!r.provenance.contains("seed_policy") && sqlite3_column_type(st, 0) != SQLITE_NULL) r.provenance["seed_policy"] = text(st, 0);
      if (!r.provenance.contains("nvml_driver") && sqlite3_column_type(st, 1) != SQLITE_NULL) r.provenance["nvml_driver"] = text(st, 1);
      rc = SQLITE_DONE;
    }
    db.done(st, rc, "evaluation provenance");
  }
  // (run, problem, trajectory) -> complete
  std::map<std::tuple<std::string, std::string, int>, bool> complete;
  {
    auto st = db.prepare("SELECT run_id, problem, trajectory, status FROM trajectories");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      complete[{text(st, 0), text(st, 1), sqlite3_column_int(st, 2)}] = text(st, 3) == "complete";
    db.done(st, rc, "trajectories");
  }
  {
    std::string sql =
        "SELECT t.run_id, t.problem, t.trajectory, t.turn, t.phase, t.state, t.target_executed, t.speedup_geomean, "
        "t.reasoning_tokens, t.output_tokens, t.reasoning_chars, e.gpu, json_extract(e.record_json, '$.target_seen'), "
        "json_extract(e.record_json, '$.schema')";
    if (options.with_detail) sql += ", t.feedback, c.source, e.record_json";
    sql += " FROM turns t LEFT JOIN evaluations e ON e.id = t.evaluation_id";
    if (options.with_detail) sql += " LEFT JOIN candidates c ON c.sha256 = t.candidate_sha256";
    sql += " ORDER BY t.run_id, t.problem, t.trajectory, t.turn";
    auto st = db.prepare(sql);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      TurnRow t;
      t.run = text(st, 0);
      const RunInfo* info = set.run(t.run);
      if (!info) continue;  // not selected
      t.problem = text(st, 1);
      t.trajectory = sqlite3_column_int(st, 2);
      t.turn = sqlite3_column_int(st, 3) + 1;  // the store numbers turns from 0
      const std::string where = file.string() + ": turn " + std::to_string(t.turn - 1) + " of run '" + t.run + "', " + t.problem +
                                " trajectory " + std::to_string(t.trajectory);
      const std::string state = text(st, 5);
      if (text(st, 4) != "done" || state == "pending") t.state = TurnState::pending;
      else if (auto s = turn_state_from_string(state)) t.state = *s;
      else throw InputError(where + ": unknown state '" + state + "' (known: " + known_turn_states() + ")");
      if (auto te = opt_int(st, 6)) t.target_executed = *te != 0;
      if (auto seen = opt_int(st, 12)) t.target_seen = *seen != 0;
      else if (opt_int(st, 13).value_or(0) < 3) t.target_seen = t.target_executed;
      t.speedup_geomean = opt_double(st, 7);
      if (t.speedup_geomean && !(*t.speedup_geomean > 0)) t.speedup_geomean.reset();
      t.reasoning_tokens = opt_int(st, 8);
      t.output_tokens = opt_int(st, 9);
      t.reasoning_chars = sqlite3_column_int64(st, 10);
      t.gpu = text(st, 11);
      if (t.gpu.empty()) t.gpu = info->gpu;
      t.model = info->model, t.arch = info->arch, t.knowledge = info->knowledge, t.language = info->language;
      if (auto it = splits.find(t.run); it != splits.end() && it->second.contains(t.problem) && it->second[t.problem].is_string())
        t.split = it->second[t.problem].get<std::string>();
      auto c = complete.find({t.run, t.problem, t.trajectory});
      t.finished = c != complete.end() && c->second;
      if (options.with_detail) {
        t.feedback = text(st, 14);
        t.code = text(st, 15);
        if (sqlite3_column_type(st, 16) != SQLITE_NULL) {
          const json rec = parse_json(text(st, 16), where + ": its evaluation's record_json");
          t.reason = rec.value("reason", "");
          if (rec.contains("timing") && rec["timing"].is_array())
            for (const auto& s : rec["timing"]) {
              ShapeResult r;
              r.shape = shape_label(s.value("shape", json::object()));
              r.speedup = s.value("speedup", 0.0);
              if (s.value("median_ms", 0.0) > 0) r.median_ms = s.value("median_ms", 0.0);
              if (s.value("baseline_median_ms", 0.0) > 0) r.baseline_median_ms = s.value("baseline_median_ms", 0.0);
              t.shapes.push_back(std::move(r));
            }
        }
      }
      set.turns.push_back(std::move(t));
    }
    db.done(st, rc, "turns");
  }
  return set;
}

}  // namespace ptxbench::metrics

// Loads runs and turns from ptxbench.metrics/1 or ptxbench.turn/1 JSONL files.
#include "metrics/load_jsonl.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "store/turn_json.h"

namespace ptxbench::metrics {

bool LoadOptions::wanted(const std::string& run_id) const {
  return runs.empty() || std::find(runs.begin(), runs.end(), run_id) != runs.end();
}

namespace {

// Typed access to one line's object, every error naming file:line and the field.
class Line {
 public:
  Line(const json& j, std::string where) : j_(j), where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(where_ + ": field '" + field + "' " + what);
  }
  const json* find(const json& obj, const std::string& field) const {
    auto it = obj.find(field);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  std::string str(const std::string& field, bool required = true, const json* obj = nullptr) const {
    const json* v = find(obj ? *obj : j_, field);
    if (!v) {
      if (required) fail(field, "is missing");
      return "";
    }
    if (!v->is_string()) fail(field, "must be a string (got " + v->dump() + ")");
    return v->get<std::string>();
  }
  long long integer(const std::string& field, long long min, const json* obj = nullptr) const {
    const json* v = find(obj ? *obj : j_, field);
    if (!v) fail(field, "is missing");
    if (!v->is_number_integer() || v->get<long long>() < min)
      fail(field, "must be an integer >= " + std::to_string(min) + " (got " + v->dump() + ")");
    return v->get<long long>();
  }
  std::optional<long long> opt_integer(const std::string& field, const json* obj = nullptr) const {
    const json* v = find(obj ? *obj : j_, field);
    if (!v) return std::nullopt;
    if (!v->is_number_integer() || v->get<long long>() < 0)
      fail(field, "must be a non-negative integer or null (got " + v->dump() + ")");
    return v->get<long long>();
  }
  std::optional<double> opt_positive(const std::string& field, const json* obj = nullptr) const {
    const json* v = find(obj ? *obj : j_, field);
    if (!v) return std::nullopt;
    if (!v->is_number() || !(v->get<double>() > 0)) fail(field, "must be a number > 0 or null (got " + v->dump() + ")");
    return v->get<double>();
  }
  std::optional<bool> opt_bool(const std::string& field, const json* obj = nullptr) const {
    const json* v = find(obj ? *obj : j_, field);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(field, "must be true, false or null (got " + v->dump() + ")");
    return v->get<bool>();
  }
  TurnState state(const std::string& field) const {
    const std::string s = str(field);
    auto st = turn_state_from_string(s);
    if (!st) fail(field, "has unknown state '" + s + "' (known: " + known_turn_states() + ")");
    return *st;
  }
  const json& obj() const { return j_; }
  const std::string& where() const { return where_; }

 private:
  const json& j_;
  std::string where_;
};

// The turn's stored fields (store/turn_row.h) that the line holds, under `keys`; a speedup must be
// > 0. The identity read by the caller (1-based turn) is copied in, as stored.
void read_stored(const Line& l, TurnKeys keys, TurnRow& t) {
  try {
    get_turn_fields(l.obj(), keys, &t.stored);
  } catch (const InputError& e) {
    throw InputError(l.where() + ": " + e.what());
  }
  if (const auto& v = t.stored.speedup_geomean; v && !(*v > 0))
    l.fail(turn_field::speedup_geomean, "must be a number > 0 or null (got " + json(*v).dump() + ")");
  t.stored.run_id = t.run, t.stored.problem = t.problem, t.stored.trajectory = t.trajectory, t.stored.turn = t.turn - 1;
}

std::string shape_label(const json& shape) {
  if (shape.is_string()) return shape.get<std::string>();
  std::string s;
  if (shape.is_object())
    for (const auto& [k, v] : shape.items())
      s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::vector<std::string> string_list(const Line& l, const std::string& field, const json* obj = nullptr) {
  std::vector<std::string> out;
  const json* v = l.find(obj ? *obj : l.obj(), field);
  if (!v) return out;
  if (!v->is_array()) l.fail(field, "must be an array of strings");
  for (const auto& x : *v) {
    if (!x.is_string()) l.fail(field, "must be an array of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

struct Reader {
  const std::filesystem::path& path;
  const LoadOptions& options;
  TurnSet set;
  std::map<std::string, json> splits;             // run -> {problem: split}
  std::set<std::string> runs_with_finished_flag;  // runs whose turns said trajectory_finished
  std::set<std::string> skipped_runs;

  RunInfo& add_run(RunInfo r, const Line& l) {
    if (set.run(r.id)) throw InputError(l.where() + ": run '" + r.id + "' is defined twice");
    r.source = path.string();
    set.runs.push_back(std::move(r));
    return set.runs.back();
  }

  void metrics_run(const Line& l) {
    RunInfo r;
    r.id = l.str("id");
    if (!options.wanted(r.id)) return void(skipped_runs.insert(r.id));
    r.model = l.str("model"), r.arch = l.str("arch"), r.knowledge = l.str("knowledge");
    r.gpu = l.str("gpu", false), r.suite = l.str("suite", false), r.status = l.str("status", false);
    r.problems = string_list(l, "problems");
    r.trajectories = static_cast<int>(l.integer("trajectories", 1));
    r.turns = static_cast<int>(l.integer("turns", 1));
    if (const json* p = l.find(l.obj(), "provenance")) {
      if (!p->is_object()) l.fail("provenance", "must be an object");
      r.provenance = *p;
    }
    if (const json* s = l.find(l.obj(), "splits")) {
      if (!s->is_object()) l.fail("splits", "must be an object {problem: split}");
      splits[r.id] = *s;
    }
    add_run(std::move(r), l);
  }

  void metrics_turn(const Line& l) {
    TurnRow t;
    t.run = l.str("run");
    if (skipped_runs.count(t.run) || !options.wanted(t.run)) return;
    t.problem = l.str("problem");
    t.trajectory = static_cast<int>(l.integer("trajectory", 0));
    t.turn = static_cast<int>(l.integer("turn", 1));
    t.state = l.state("state");
    read_stored(l, TurnKeys::report_columns, t);  // the report's fields, under their column names
    t.target_seen = l.find(l.obj(), "target_seen") ? l.opt_bool("target_seen") : t.stored.target_executed;
    t.split = l.str("split", false);
    t.gpu = l.str("gpu", false);
    if (auto f = l.opt_bool("trajectory_finished")) t.finished = *f, runs_with_finished_flag.insert(t.run);
    if (options.with_detail) {
      t.code = l.str("code", false), t.stored.feedback = l.str("feedback", false), t.reason = l.str("reason", false);
      if (const json* shapes = l.find(l.obj(), "shapes")) {
        if (!shapes->is_array())
          l.fail("shapes", "must be an array of {shape, speedup, median_ms, baseline_median_ms}");
        for (const auto& s : *shapes) {
          Line sl(s, l.where() + " (shapes)");
          ShapeResult r;
          r.shape = sl.str("shape");
          r.speedup = sl.opt_positive("speedup").value_or(0);
          r.median_ms = sl.opt_positive("median_ms");
          r.baseline_median_ms = sl.opt_positive("baseline_median_ms");
          t.shapes.push_back(std::move(r));
        }
      }
    }
    set.turns.push_back(std::move(t));
  }

  void agent_turn(const Line& l) {
    const json* run = l.find(l.obj(), "run");
    if (!run || !run->is_object()) l.fail("run", "must be the run object of the export");
    const std::string id = l.str("id", true, run);
    if (!options.wanted(id)) return;
    if (!set.run(id)) {
      RunInfo r;
      r.id = id;
      r.model = l.str("model", true, run), r.arch = l.str("arch", true, run),
      r.knowledge = l.str("knowledge", true, run);
      if (const json* c = l.find(*run, "config")) {
        r.knowledge = knowledge_condition(r.knowledge, *c);
        if (c->is_object() && c->contains("language") && (*c)["language"].is_string())
          r.language = (*c)["language"].get<std::string>();
      }
      r.status = l.str("status", false, run);
      r.problems = string_list(l, "problems", run);
      r.trajectories = static_cast<int>(l.integer("trajectories", 1, run));
      r.turns = static_cast<int>(l.integer("turns", 1, run));
      if (const json* p = l.find(*run, "provenance"); p && p->is_object()) {
        r.provenance = *p;
        // The agent records {"name": "none", "gpu_stages": false} when no GPU stage ran.
        if (p->contains("gpu") && (*p)["gpu"].is_object() && (*p)["gpu"].value("gpu_stages", true))
          r.gpu = (*p)["gpu"].value("name", "");
      }
      if (const json* c = l.find(*run, "config"); c && c->is_object()) {
        r.suite = c->value("suite", "");
        if (c->contains("splits") && (*c)["splits"].is_object()) splits[id] = (*c)["splits"];
      }
      add_run(std::move(r), l);
    }
    RunInfo& info = *set.run(id);
    TurnRow t;
    t.run = id;
    t.problem = l.str("problem");
    t.trajectory = static_cast<int>(l.integer("trajectory", 0));
    t.turn = static_cast<int>(l.integer("turn", 0)) + 1;  // the export numbers turns from 0
    t.state = l.str("phase", false) == "judging" ? TurnState::pending : l.state("state");
    if (const json* sp = l.find(l.obj(), "split"); sp && sp->is_string())
      t.split = sp->get<std::string>();        // else the run's splits
    read_stored(l, TurnKeys::export_keys, t);  // every declared field the export holds
    if (!options.with_detail) t.stored.feedback.clear(), t.stored.context = t.stored.extraction = json::object();
    t.target_seen = t.stored.target_executed;  // the evaluation's own flag, below, when it records one
    const json* eval = l.find(l.obj(), "evaluation");
    if (eval && eval->is_object()) {
      t.gpu = eval->value("gpu", "");
      if (const auto sc = eval->find("schema");
          sc != eval->end() && sc->is_number_integer() && sc->get<long long>() >= 3) {
        const auto seen = eval->find("target_seen");
        t.target_seen =
            seen != eval->end() && seen->is_boolean() ? std::optional<bool>(seen->get<bool>()) : std::nullopt;
      }
      // What the run's provenance lacks and its evaluation records carry.
      RunInfo& r = info;
      const json env = eval->value("environment", json::object());
      if (env.is_object()) {
        if (!r.provenance.contains("seed_policy") && env.contains("seed_policy"))
          r.provenance["seed_policy"] = env["seed_policy"];
        if (!r.provenance.contains("nvml_driver") && env.contains("gpu_state_at_start") &&
            env["gpu_state_at_start"].is_object() && env["gpu_state_at_start"].contains("driver"))
          r.provenance["nvml_driver"] = env["gpu_state_at_start"]["driver"];
      }
    }
    if (t.gpu.empty()) t.gpu = info.gpu;
    if (options.with_detail) {
      if (const json* c = l.find(l.obj(), "candidate"); c && c->is_object()) t.code = l.str("source", false, c);
      if (eval && eval->is_object()) {
        t.reason = eval->value("reason", "");
        if (eval->contains("timing") && (*eval)["timing"].is_array())
          for (const auto& s : (*eval)["timing"]) {
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
};

}  // namespace

TurnSet load_jsonl(const std::filesystem::path& path, const LoadOptions& options) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path.string());
  Reader r{path, options, {}, {}, {}, {}};
  std::string text;
  long line_no = 0;
  std::vector<std::pair<long, json>> pending_turns;  // metrics turns whose run line may come later
  while (std::getline(in, text)) {
    ++line_no;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(line_no);
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw InputError(where + ": not a JSON object (each line must be one JSON object)");
    if (!j.is_object()) throw InputError(where + ": not a JSON object");
    const std::string format = j.value("format", std::string(kMetricsFormat));
    if (format == kAgentTurnFormat) {
      r.agent_turn(Line(j, where));
      continue;
    }
    if (format != kMetricsFormat)
      throw InputError(where + ": unknown format '" + format + "' (known: " + kMetricsFormat + ", " + kAgentTurnFormat +
                       ")");
    const std::string kind = Line(j, where).str("kind");
    if (kind == "run") r.metrics_run(Line(j, where));
    else if (kind == "turn") pending_turns.emplace_back(line_no, std::move(j));
    else throw InputError(where + ": field 'kind' must be \"run\" or \"turn\" (got \"" + kind + "\")");
  }
  for (const auto& [no, j] : pending_turns) {
    const Line l(j, path.string() + ":" + std::to_string(no));
    const std::string run = l.str("run");
    if (!options.wanted(run) || r.skipped_runs.count(run)) continue;
    const RunInfo* info = r.set.run(run);
    if (!info)
      throw InputError(l.where() + ": turn names run '" + run + "', which no \"run\" line in " + path.string() +
                       " defines");
    r.metrics_turn(l);
  }
  // Copy the run's settings into its turns; derive what the lines did not say.
  for (auto& t : r.set.turns) {
    const RunInfo& info = *r.set.run(t.run);
    t.model = info.model, t.arch = info.arch, t.knowledge = info.knowledge, t.language = info.language;
    if (t.gpu.empty()) t.gpu = info.gpu;
    if (t.split.empty())
      if (auto it = r.splits.find(t.run);
          it != r.splits.end() && it->second.contains(t.problem) && it->second[t.problem].is_string())
        t.split = it->second[t.problem].get<std::string>();
  }
  for (const auto& run : r.set.runs)
    if (!r.runs_with_finished_flag.count(run.id)) derive_finished(r.set, run.id);
  return std::move(r.set);
}

}  // namespace ptxbench::metrics

// Run tables for the terminal and as JSON: the end-of-run summary, `runs list`, `runs show`.
#include "report/run_tables.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "store/turn_json.h"

namespace ptxbench::report {
namespace {

std::string run_fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string run_pad(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s + " ";
}

std::string opt_speedup(const std::optional<double>& v) { return v ? run_fmt("%.3fx", *v) : "-"; }

json run_opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

struct ProblemTally {
  int trajectories = 0, complete = 0, turns = 0, pending = 0, correct = 0, target_correct = 0;
  std::map<std::string, int> states;
  std::optional<double> best, best_target;
};

std::map<std::string, ProblemTally> tally(const RunInfo& run, const std::vector<TurnRow>& turns,
                                          const std::vector<TrajectoryRow>& trajectories) {
  std::map<std::string, ProblemTally> out;
  for (const auto& p : run.problems) out[p];
  for (const auto& t : trajectories) {
    if (t.trajectory >= run.trajectories) continue;
    auto& p = out[t.problem];
    ++p.trajectories;
    if (t.status == "complete") ++p.complete;
  }
  for (const auto& t : turns) {
    auto& p = out[t.problem];
    if (t.phase != "done") {
      ++p.pending;
      continue;
    }
    ++p.turns;
    ++p.states[t.state];
    if (t.state == "correct") {
      ++p.correct;
      if (t.speedup_geomean && (!p.best || *t.speedup_geomean > *p.best)) p.best = t.speedup_geomean;
      if (t.target_correct.value_or(false)) {
        ++p.target_correct;
        if (t.speedup_geomean && (!p.best_target || *t.speedup_geomean > *p.best_target))
          p.best_target = t.speedup_geomean;
      }
    }
  }
  return out;
}

std::string states_text(const std::map<std::string, int>& states) {
  std::string s;
  for (const auto& [k, n] : states) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(n);
  return s.empty() ? "-" : s;
}

// The run's suite and a problem's split in it (from the stored config); "" without a suite.
std::string suite_of(const RunInfo& run) {
  return run.config.is_object() && run.config.contains("suite") && run.config["suite"].is_string()
             ? run.config["suite"].get<std::string>()
             : "";
}
std::string split_of(const RunInfo& run, const std::string& problem) {
  if (!run.config.is_object() || !run.config.contains("splits") || !run.config["splits"].is_object()) return "";
  const json& s = run.config["splits"];
  return s.contains(problem) && s[problem].is_string() ? s[problem].get<std::string>() : "";
}

std::string gpu_line(const RunInfo& run) {
  const json& g = run.provenance.contains("gpu") ? run.provenance["gpu"] : json::object();
  const bool stages = g.is_object() && g.value("gpu_stages", false);
  if (stages) return "GPU " + g.value("name", std::string("?"));
  return "NO GPU STAGE RAN (" + (g.is_object() ? g.value("reason", std::string("unknown")) : std::string("unknown")) +
         "): verdicts are from the build and static checks only";
}

}  // namespace

std::string format_run_summary(const RunInfo& run, const std::vector<TurnRow>& turns,
                               const std::vector<TrajectoryRow>& trajectories) {
  std::ostringstream o;
  o << "run " << run.id << ": " << run.status << (run.stop_reason.empty() ? "" : " (" + run.stop_reason + ")") << "\n";
  o << run.model << ", " << run.arch << ", knowledge " << run.knowledge << ", " << run.trajectories
    << " trajectories x " << run.turns << " turns per problem; " << gpu_line(run) << "\n";
  const std::string suite = suite_of(run);
  if (!suite.empty()) o << "suite " << suite << " (split: train = trained on, held-out = evaluated only)\n";
  o << "\n"
    << run_pad("problem", 16) << (suite.empty() ? "" : run_pad("split", 9)) << run_pad("trajectories", 13)
    << run_pad("turns", 6) << run_pad("correct", 8) << run_pad("target-ok", 10) << run_pad("best", 8)
    << run_pad("best-target", 12) << "states\n";
  for (const auto& [name, p] : tally(run, turns, trajectories)) {
    o << run_pad(name, 16) << (suite.empty() ? "" : run_pad(split_of(run, name), 9))
      << run_pad(std::to_string(p.complete) + "/" + std::to_string(p.trajectories), 13)
      << run_pad(std::to_string(p.turns) + (p.pending ? "+" + std::to_string(p.pending) : ""), 6)
      << run_pad(std::to_string(p.correct), 8) << run_pad(std::to_string(p.target_correct), 10)
      << run_pad(opt_speedup(p.best), 8) << run_pad(opt_speedup(p.best_target), 12) << states_text(p.states) << "\n";
  }
  o << "\n(turns: counted turns judged; +N: stored replies not judged yet. best: geomean speedup vs the library among "
       "correct turns; best-target: among correct turns whose target instructions executed)\n";
  return o.str();
}

json run_summary_json(const RunInfo& run, const std::vector<TurnRow>& turns,
                      const std::vector<TrajectoryRow>& trajectories) {
  json problems = json::array();
  for (const auto& [name, p] : tally(run, turns, trajectories))
    problems.push_back({{"problem", name},
                        {"split", split_of(run, name)},
                        {"trajectories", p.trajectories},
                        {"trajectories_complete", p.complete},
                        {"turns", p.turns},
                        {"turns_pending", p.pending},
                        {"correct", p.correct},
                        {"target_correct", p.target_correct},
                        {"best_speedup", run_opt_json(p.best)},
                        {"best_target_speedup", run_opt_json(p.best_target)},
                        {"states", p.states}});
  return {{"run",
           {{"id", run.id},
            {"status", run.status},
            {"stop_reason", run.stop_reason},
            {"model", run.model},
            {"arch", run.arch},
            {"knowledge", run.knowledge},
            {"trajectories", run.trajectories},
            {"turns", run.turns},
            {"suite", suite_of(run)},
            {"provenance", run.provenance}}},
          {"problems", problems}};
}

std::string format_run_list(const std::vector<RunListEntry>& runs) {
  std::ostringstream o;
  o << run_pad("run", 48) << run_pad("status", 9) << run_pad("arch", 8) << run_pad("budget", 8) << run_pad("turns", 12)
    << run_pad("updated", 25) << "problems\n";
  for (const auto& e : runs) {
    const int total = e.run.trajectories * e.run.turns * static_cast<int>(e.run.problems.size());
    std::string problems;
    for (const auto& p : e.run.problems) problems += (problems.empty() ? "" : ",") + p;
    o << run_pad(e.run.id, 48) << run_pad(e.run.status, 9) << run_pad(e.run.arch, 8)
      << run_pad(std::to_string(e.run.trajectories) + "x" + std::to_string(e.run.turns), 8)
      << run_pad(std::to_string(e.turns_done) + "/" + std::to_string(total), 12) << run_pad(e.run.updated_at, 25)
      << problems << "\n";
  }
  if (runs.empty()) o << "(no runs in this workspace)\n";
  return o.str();
}

json run_list_json(const std::vector<RunListEntry>& runs) {
  json out = json::array();
  for (const auto& e : runs)
    out.push_back({{"id", e.run.id},
                   {"status", e.run.status},
                   {"stop_reason", e.run.stop_reason},
                   {"model", e.run.model},
                   {"arch", e.run.arch},
                   {"knowledge", e.run.knowledge},
                   {"problems", e.run.problems},
                   {"trajectories", e.run.trajectories},
                   {"turns", e.run.turns},
                   {"turns_done", e.turns_done},
                   {"trajectories_complete", e.trajectories_complete},
                   {"created_at", e.run.created_at},
                   {"updated_at", e.run.updated_at}});
  return out;
}

std::string format_run_detail(const RunInfo& run, const std::vector<TurnRow>& turns,
                              const std::vector<TrajectoryRow>& trajectories) {
  std::ostringstream o;
  o << format_run_summary(run, turns, trajectories) << "\n";
  const json& h = run.provenance.value("harness", json::object());
  o << "harness " << h.value("version", std::string("?")) << " (commit " << h.value("commit", std::string("?"))
    << (h.value("dirty", false) ? ", dirty" : "") << "), nvcc " << run.provenance.value("nvcc", std::string("?"))
    << "\n";
  o << "context: last " << run.config.value("context_turns", 0) << " turns in full; created " << run.created_at
    << ", updated " << run.updated_at << "\n\n";
  o << run_pad("trajectory", 22) << run_pad("status", 9) << run_pad("best", 8) << "turns (state per turn)\n";
  std::map<std::pair<std::string, int>, std::vector<const TurnRow*>> by;
  for (const auto& t : turns) by[{t.problem, t.trajectory}].push_back(&t);
  for (const auto& tr : trajectories) {
    if (tr.trajectory >= run.trajectories) continue;
    std::optional<double> best;
    std::string seq;
    for (const TurnRow* t : by[{tr.problem, tr.trajectory}]) {
      seq += (seq.empty() ? "" : ", ") + (t->phase == "done" ? t->state : "judging");
      if (t->state == "correct" && t->speedup_geomean && (!best || *t->speedup_geomean > *best))
        best = t->speedup_geomean;
    }
    o << run_pad(tr.problem + "/" + std::to_string(tr.trajectory), 22) << run_pad(tr.status, 9)
      << run_pad(opt_speedup(best), 8) << (seq.empty() ? "-" : seq) << "\n";
  }
  return o.str();
}

std::string format_trajectory(const RunInfo& run, const std::string& problem, int trajectory,
                              const std::vector<TurnRow>& turns, bool with_feedback) {
  std::ostringstream o;
  o << "run " << run.id << ", " << problem << " trajectory " << trajectory << " (turns numbered from 0)\n\n";
  o << run_pad("turn", 5) << run_pad("state", 16) << run_pad("reply", 16) << run_pad("targets", 9)
    << run_pad("speedup", 8) << run_pad("model s", 8) << run_pad("build s", 8) << run_pad("GPU s", 7)
    << run_pad("tokens in/out/reason", 22) << run_pad("cost", 8) << "candidate\n";
  auto tok = [](const std::optional<long long>& v) { return v ? std::to_string(*v) : std::string("?"); };
  for (const auto& t : turns) {
    if (t.problem != problem || t.trajectory != trajectory) continue;
    const std::string targets = t.target_executed                 ? (*t.target_executed ? "exec" : "not-exec")
                                : t.target_static.value_or(false) ? "static"
                                                                  : "-";
    o << run_pad(std::to_string(t.turn), 5) << run_pad(t.phase == "done" ? t.state : "judging", 16)
      << run_pad(t.provider_outcome, 16) << run_pad(targets, 9) << run_pad(opt_speedup(t.speedup_geomean), 8)
      << run_pad(run_fmt("%.1f", t.model_seconds), 8) << run_pad(run_fmt("%.1f", t.build_seconds), 8)
      << run_pad(run_fmt("%.1f", t.gpu_seconds), 7)
      << run_pad(tok(t.input_tokens) + "/" + tok(t.output_tokens) + "/" + tok(t.reasoning_tokens), 22)
      << run_pad(t.cost_usd ? run_fmt("$%.4f", *t.cost_usd) : "-", 8)
      << (t.candidate_sha256 ? t.candidate_sha256->substr(0, 12) + (t.reused_evaluation ? " (reused)" : "") : "-")
      << "\n";
    if (with_feedback && !t.feedback.empty()) {
      std::istringstream in(t.feedback);
      for (std::string line; std::getline(in, line);) o << "      | " << line << "\n";
    }
  }
  return o.str();
}

json trajectory_json(const RunInfo& run, const std::string& problem, int trajectory,
                     const std::vector<TurnRow>& turns) {
  json out = json::array();
  for (const auto& t : turns) {
    if (t.problem != problem || t.trajectory != trajectory) continue;
    json turn = json::object();
    put_turn_fields(t, TurnKeys::export_keys, turn);  // as the run export writes them (store/turn_row.h)
    turn["candidate_sha256"] = t.candidate_sha256 ? json(*t.candidate_sha256) : json(nullptr);
    out.push_back(std::move(turn));
  }
  return {{"run", run.id}, {"problem", problem}, {"trajectory", trajectory}, {"turns", out}};
}

}  // namespace ptxbench::report

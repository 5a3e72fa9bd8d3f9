// ptxbench runs list | runs show RUN [TRAJ] | runs export RUN --jsonl: read the runs in the
// workspace database.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "report/run_tables.h"
#include "store/run_export.h"
#include "store/run_store.h"

namespace ptxbench::cli {
namespace {

void check(const DbStatus& s) {
  if (!s.ok) throw InputError(s.error);
}

void list_runs(const GlobalOptions& g, bool as_json) {
  RunStore store(database_path(g, true));
  check(store.status());
  std::vector<RunInfo> runs;
  check(store.list_runs(&runs));
  std::vector<report::RunListEntry> entries;
  for (auto& r : runs) {
    std::vector<TrajectoryRow> trajectories;
    check(store.load_trajectories(r.id, &trajectories));
    report::RunListEntry e{r, 0, 0};
    for (const auto& t : trajectories) e.turns_done += t.turns_done, e.trajectories_complete += t.status == "complete";
    entries.push_back(std::move(e));
  }
  std::cout << (as_json ? report::run_list_json(entries).dump(2) + "\n" : report::format_run_list(entries));
}

// "gemm/3", or "3" when the run has one problem.
std::pair<std::string, int> parse_trajectory(const std::string& s, const RunInfo& run) {
  const auto slash = s.find('/');
  std::string problem = slash == std::string::npos ? "" : s.substr(0, slash);
  const std::string number = slash == std::string::npos ? s : s.substr(slash + 1);
  int n = -1;
  try {
    size_t used = 0;
    n = std::stoi(number, &used);
    if (used != number.size()) n = -1;
  } catch (const std::exception&) {
  }
  if (n < 0) throw InputError("trajectory '" + s + "': expected PROBLEM/N (e.g. gemm/0), numbered from 0");
  if (problem.empty()) {
    if (run.problems.size() != 1)
      throw InputError("trajectory '" + s + "': the run has several problems, give PROBLEM/N (e.g. gemm/0)");
    problem = run.problems.front();
  }
  if (std::find(run.problems.begin(), run.problems.end(), problem) == run.problems.end())
    throw InputError("run " + run.id + " has no problem '" + problem + "'");
  if (n >= run.trajectories)
    throw InputError("run " + run.id + " has trajectories 0-" + std::to_string(run.trajectories - 1) +
                     " per problem, not " + std::to_string(n));
  return {problem, n};
}

void show_run(const GlobalOptions& g, const std::string& id, const std::string& trajectory, bool as_json,
              bool feedback) {
  RunStore store(database_path(g, true));
  check(store.status());
  RunInfo run;
  check(store.get_run(id, &run));
  std::vector<TurnRow> turns;
  std::vector<TrajectoryRow> trajectories;
  check(store.load_turns(id, &turns));
  check(store.load_trajectories(id, &trajectories));
  if (!trajectory.empty()) {
    auto [problem, n] = parse_trajectory(trajectory, run);
    std::cout << (as_json ? report::trajectory_json(run, problem, n, turns).dump(2) + "\n"
                          : report::format_trajectory(run, problem, n, turns, feedback));
    return;
  }
  if (as_json) {
    json j = report::run_summary_json(run, turns, trajectories);
    j["run"]["config"] = run.config;
    std::vector<RunEvent> events;
    check(store.load_events(id, &events));
    json ev = json::array();
    for (const auto& e : events)
      ev.push_back({{"at", e.at},
                    {"kind", e.kind},
                    {"message", e.message},
                    {"problem", e.problem},
                    {"trajectory", e.trajectory},
                    {"turn", e.turn}});
    j["events"] = ev;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << report::format_run_detail(run, turns, trajectories);
  }
}

void export_run(const GlobalOptions& g, const std::string& id, bool jsonl, const std::string& out_file,
                bool request_bodies) {
  if (!jsonl) throw InputError("runs export: choose a format: --jsonl");
  RunStore store(database_path(g, true));
  check(store.status());
  ExportOptions o;
  o.request_bodies = request_bodies;
  size_t lines = 0;
  if (out_file.empty()) {
    check(export_run_jsonl(store, id, std::cout, o, &lines));
  } else {
    std::ofstream out(out_file, std::ios::binary);
    if (!out) throw InputError("cannot write " + out_file);
    check(export_run_jsonl(store, id, out, o, &lines));
  }
  std::cerr << "[ptxbench] exported " << lines << " turns of run " << id << (out_file.empty() ? "" : " to " + out_file)
            << "\n";
}

}  // namespace

void add_runs_command(CLI::App& app, GlobalOptions& g, ExitCode&) {
  auto* cmd = app.add_subcommand("runs", "List, show and export the runs in the workspace");
  cmd->require_subcommand(1);
  auto list_json = std::make_shared<bool>(false);
  auto* list = cmd->add_subcommand("list", "The runs in the workspace, newest first");
  list->add_flag("--json", *list_json, "JSON output");
  list->callback([list_json, &g] { list_runs(g, *list_json); });

  struct ShowArgs {
    std::string run, trajectory;
    bool json = false, feedback = false;
  };
  auto s = std::make_shared<ShowArgs>();
  auto* show =
      cmd->add_subcommand("show", "One run: its config, provenance and trajectories; or one trajectory's turns");
  show->add_option("run", s->run, "Run id (see 'ptxbench runs list')")->required();
  show->add_option("trajectory", s->trajectory,
                   "PROBLEM/N (e.g. gemm/0; N alone when the run has one problem), from 0");
  show->add_flag("--feedback", s->feedback, "With TRAJ: print the feedback each turn got");
  show->add_flag("--json", s->json, "JSON output");
  show->callback([s, &g] { show_run(g, s->run, s->trajectory, s->json, s->feedback); });

  struct ExportArgs {
    std::string run, out;
    bool jsonl = false, request_bodies = false;
  };
  auto e = std::make_shared<ExportArgs>();
  auto* exp =
      cmd->add_subcommand("export", "Every turn of a run as one JSON object per line (replayable with replay:FILE)");
  exp->add_option("run", e->run, "Run id")->required();
  exp->add_flag("--jsonl", e->jsonl, "JSON Lines (the only format)");
  exp->add_option("-o,--out", e->out, "Write to this file (default stdout)");
  exp->add_flag("--request-bodies", e->request_bodies, "Include each request's exact bytes and system text (large)");
  exp->callback([e, &g] { export_run(g, e->run, e->jsonl, e->out, e->request_bodies); });
}

}  // namespace ptxbench::cli

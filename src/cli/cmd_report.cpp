// ptxbench report [WORKSPACE|DB|RUN_FILE.jsonl...] [--format table|md|csv|json|jsonl|html] [--budgets 1,4,8]
//   [--group-by DIMS] [--compare A..B]... [--run ID]... [--fastp-unit trajectory|task]
//   [--bootstrap N] [--seed S] [--table NAME]... [--no-turns] [--out FILE]
// The paper's tables and plots, with intervals, from runs that `ptxbench run` wrote (docs/metrics.md).
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "core/build_info.h"
#include "core/error.h"
#include "metrics/load_jsonl.h"
#include "metrics/load_workspace.h"
#include "report/metrics_report.h"
#include "report/fixit_tables.h"
#include "report/printer.h"
#include "store/fixit_store.h"

namespace ptxbench::cli {
namespace {

metrics::TurnSet load_input(const std::string& input, const metrics::LoadOptions& options) {
  namespace fs = std::filesystem;
  const fs::path p(input);
  if (!fs::exists(p))
    throw InputError("report input '" + input +
                     "' does not exist (give a workspace folder, its ptxbench.db, or a .jsonl file)");
  if (fs::is_directory(p) || p.extension() == ".db" || p.extension() == ".sqlite")
    return metrics::load_workspace(p, options);
  return metrics::load_jsonl(p, options);
}

std::string generator() {
  return "ptxbench " + harness_version() + " (commit " + harness_commit().substr(0, 12) +
         (harness_dirty() ? ", dirty" : "") + ")";
}

void write_output(const std::string& text, const std::string& out) {
  if (out.empty() || out == "-") {
    std::cout << text;
    return;
  }
  std::ofstream f(out, std::ios::binary);
  if (!f || !(f << text)) throw InputError("cannot write " + out);
  std::cerr << "ptxbench: wrote " << out << " (" << text.size() << " bytes)\n";
}

// The Fixit builds of the workspaces among the inputs, as the fixit_builds and fixit_records tables
// (the HTML report plots records per problem per recipe from them: the paper's Fig. 4).
void add_fixit_builds(const std::vector<std::string>& inputs, report::Report& r) {
  namespace fs = std::filesystem;
  report::Report fixit;
  for (const auto& in : inputs) {
    const fs::path db = fs::is_directory(in) ? fs::path(in) / "ptxbench.db" : fs::path(in);
    if (db.extension() != ".db" || !FixitStore::has_builds(db)) continue;
    FixitStore store(db);
    report::Report one;
    if (auto st = report::add_fixit_tables(store, {}, false, &one); !st.ok) throw InputError(in + ": " + st.error);
    for (auto& t : one.tables) {
      auto it = std::find_if(fixit.tables.begin(), fixit.tables.end(), [&](const auto& x) { return x.name == t.name; });
      if (it == fixit.tables.end()) fixit.tables.push_back(std::move(t));
      else it->rows.insert(it->rows.end(), t.rows.begin(), t.rows.end());
    }
  }
  for (auto& t : fixit.tables) r.add(std::move(t));
}

}  // namespace

void add_report_command(CLI::App& app, GlobalOptions& g, ExitCode&) {
  struct Args {
    std::vector<std::string> inputs, compare, runs, tables;
    std::string format = "table", budgets = "1,4,8", group_by = "arch,model,knowledge,split,problem",
                fastp_unit = "trajectory", out;
    std::string target = "executed";
    int bootstrap = 2000;
    double fastp_step = 0.05;
    uint64_t seed = 20260101;
    bool no_turns = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("report", "Metrics and reports from runs: the paper's tables and plots, with intervals");
  cmd->add_option("inputs", a->inputs,
                  "Workspace folders, ptxbench.db files or JSONL run files (default: the workspace)");
  cmd->add_option("-f,--format", a->format, report::format_list(true))->capture_default_str();
  cmd->add_option("--budgets", a->budgets, "Turn budgets, comma-separated")->capture_default_str();
  cmd->add_option("--group-by", a->group_by,
                  "Group by these of arch, language, model, knowledge, run, split, problem (CUDA and Triton runs are "
                  "never pooled)")
      ->capture_default_str();
  cmd->add_option("--compare", a->compare, "A..B: b against a (each a run id or key=value[+key=value]); repeatable");
  cmd->add_option("--run", a->runs, "Only this run (repeatable)");
  cmd->add_option("--fastp-unit", a->fastp_unit,
                  "trajectory (each trajectory's best kernel) or task (KernelBench: each problem's)")
      ->capture_default_str();
  cmd->add_option("--fastp-step", a->fastp_step, "Spacing of the fast_p curves' thresholds p")->capture_default_str();
  cmd->add_option("--bootstrap", a->bootstrap, "Bootstrap resamples for the speedup intervals")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", a->seed, "Bootstrap seed")->capture_default_str();
  cmd->add_option("--table", a->tables, "Only this table (repeatable; not with html)");
  cmd->add_flag("--no-turns", a->no_turns, "Leave out the per-turn table");
  cmd->add_option(
         "--target", a->target,
         "Which flag the target metrics read: executed (strict: the targets did the problem's work) or seen (the "
         "paper's: some target instruction executed)")
      ->check(CLI::IsMember({"executed", "seen"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", a->out, "Write to this file instead of stdout");
  cmd->callback([a, &g] {
    const auto printer = report::make_printer(a->format, true);
    if (const auto why = printer->whole_report_reason(); !why.empty() && !a->tables.empty())
      throw InputError("--table does not apply to --format " + a->format + " (" + why + ")");
    report::ReportSettings s;
    s.budgets = report::parse_budgets(a->budgets);
    s.group_by = metrics::parse_group_by(a->group_by);
    s.fastp_unit = metrics::parse_fastp_unit(a->fastp_unit);
    s.fastp_step = a->fastp_step;
    s.bootstrap = {a->bootstrap, a->seed};
    for (const auto& c : a->compare) s.comparisons.push_back(metrics::parse_comparison(c));
    s.generator = generator();
    s.turns_table = !a->no_turns;
    s.target_seen = a->target == "seen";
    // Before the (possibly long) load, so that a missing asset (html: plotly.min.js) fails at once.
    printer->prepare();

    metrics::LoadOptions lo;
    lo.with_detail = printer->needs_turn_detail();
    lo.runs = a->runs;
    std::vector<std::string> inputs = a->inputs;
    if (inputs.empty()) inputs.push_back(workspace_dir(g));
    metrics::TurnSet set;
    for (const auto& in : inputs) set.append(load_input(in, lo));
    for (const auto& id : a->runs)
      if (!set.run(id)) throw InputError("--run " + id + ": no such run in the inputs");
    if (set.turns.empty()) {
      std::string list;
      for (const auto& in : inputs) list += (list.empty() ? "" : ", ") + in;
      throw InputError("no turns to report in " + list +
                       (set.runs.empty() ? " (no runs)" : " (the runs have no stored turns yet)"));
    }
    s.inputs = inputs;
    report::Report r = report::build_metrics_report(set, s);
    add_fixit_builds(inputs, r);
    const bool whole = !printer->whole_report_reason().empty();
    write_output(printer->print(whole ? r : report::select_tables(r, a->tables), &set), a->out);
  });
}

}  // namespace ptxbench::cli

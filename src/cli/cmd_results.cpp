// ptxbench results [--problem NAME] [--limit N] [--id N] [--json]: read the workspace database.
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "report/summary.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {

void add_results_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  struct Args { std::string problem; int limit = 20; long long id = 0; bool json = false; };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("results", "List stored evaluations, or show one");
  cmd->add_option("-p,--problem", a->problem, "Only this problem");
  cmd->add_option("-n,--limit", a->limit, "At most this many rows")->check(CLI::PositiveNumber);
  cmd->add_option("--id", a->id, "Show this evaluation in full");
  cmd->add_flag("--json", a->json, "JSON output");
  cmd->callback([a, &g, &code] {
    auto path = std::filesystem::path(workspace_dir(g)) / "ptxbench.db";
    if (!std::filesystem::exists(path)) throw InputError("no workspace database at " + path.string() + " (run 'ptxbench eval' first)");
    WorkspaceDb db(path);
    if (!db.status().ok) throw InputError(db.status().error);
    if (a->id) {
      StoredRecord r;
      if (auto s = db.get(a->id, &r); !s.ok) throw InputError(s.error);
      std::cout << (a->json ? to_json(r.record).dump(2) + "\n" : format_summary(r.record));
      return;
    }
    std::vector<StoredRecord> rows;
    if (auto s = db.list(a->problem, a->limit, &rows); !s.ok) { std::cerr << "ptxbench: " << s.error << "\n"; code.value = 20; return; }
    if (a->json) {
      json all = json::array();
      for (const auto& r : rows) { json j = to_json(r.record); j["id"] = r.id; all.push_back(j); }
      std::cout << all.dump(2) << "\n";
      return;
    }
    std::vector<std::pair<long long, EvaluationRecord>> table;
    for (auto& r : rows) table.emplace_back(r.id, std::move(r.record));
    std::cout << format_table(table);
  });
}

}  // namespace ptxbench::cli

// ptxbench results [--problem NAME] [--limit N] [--id N] [--format table|md|csv|json|jsonl|...] [--json]:
// read the workspace database. The list is the result schema's "evaluations" table (with each
// record's arch and provenance), printed by the same printers as `ptxbench report`.
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "report/printer.h"
#include "report/provenance.h"
#include "report/results_report.h"
#include "report/summary.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {

void add_results_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  struct Args {
    std::string problem;
    int limit = 20;
    long long id = 0;
    bool json = false;
    std::string format = "table";
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("results", "List stored evaluations, or show one");
  cmd->add_option("-p,--problem", a->problem, "Only this problem");
  cmd->add_option("-n,--limit", a->limit, "At most this many rows")->check(CLI::PositiveNumber);
  cmd->add_option("--id", a->id, "Show this evaluation in full");
  cmd->add_option("-f,--format", a->format, report::format_list(false))->capture_default_str();
  cmd->add_flag("--json", a->json, "Same as --format json");
  cmd->callback([a, &g, &code] {
    const std::string format = a->json ? "json" : a->format;
    const auto printer = report::make_printer(format, false);
    auto path = std::filesystem::path(workspace_dir(g)) / "ptxbench.db";
    if (!std::filesystem::exists(path))
      throw InputError("no workspace database at " + path.string() + " (run 'ptxbench eval' first)");
    WorkspaceDb db(path);
    if (!db.status().ok) throw InputError(db.status().error);
    if (a->id) {
      StoredRecord r;
      if (auto s = db.get(a->id, &r); !s.ok) throw InputError(s.error);
      // One record: the terminal summary, or the record itself; other formats print it as a row.
      if (format == "table") {
        const auto p = report::from_record_environment(r.record.environment, r.record.gpu);
        std::cout << report::format_summary(r.record) << "\nprovenance: ptxbench " << p.harness_version << " (commit "
                  << p.harness_commit << ", dirty " << p.harness_dirty << "), nvcc " << p.nvcc << ", driver "
                  << p.driver << ", GPU " << p.gpu << ", seeds: " << p.seed_policy << "\n";
      } else if (format == "json") {
        json j = to_json(r.record);
        j["id"] = r.id;
        std::cout << j.dump(2) << "\n";
      } else {
        // One record in the list's schema.
        const auto rep = report::build_results_report({{r.id, r.record}}, path.string());
        std::cout << printer->print(rep, nullptr);
      }
      return;
    }
    std::vector<StoredRecord> rows;
    if (auto s = db.list(a->problem, a->limit, &rows); !s.ok) {
      std::cerr << "ptxbench: " << s.error << "\n";
      code.value = 20;
      return;
    }
    std::vector<std::pair<long long, EvaluationRecord>> table;
    for (auto& r : rows) table.emplace_back(r.id, std::move(r.record));
    const auto rep = report::build_results_report(table, path.string());
    std::cout << printer->print(rep, nullptr);
  });
}

}  // namespace ptxbench::cli

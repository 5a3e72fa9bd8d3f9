// ptxbench results [--problem NAME] [--limit N] [--id N] [--format table|md|csv|json|jsonl] [--json]:
// read the workspace database. The list is the result schema's "evaluations" table (with each
// record's arch and provenance), printed by the same printers as `ptxbench report`.
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "report/printers.h"
#include "report/provenance.h"
#include "report/results_report.h"
#include "report/summary.h"
#include "store/workspace_db.h"

namespace ptxbench::cli {

void add_results_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  struct Args { std::string problem; int limit = 20; long long id = 0; bool json = false; std::string format = "table"; };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("results", "List stored evaluations, or show one");
  cmd->add_option("-p,--problem", a->problem, "Only this problem");
  cmd->add_option("-n,--limit", a->limit, "At most this many rows")->check(CLI::PositiveNumber);
  cmd->add_option("--id", a->id, "Show this evaluation in full");
  cmd->add_option("-f,--format", a->format, "table, md, csv, json or jsonl")->capture_default_str();
  cmd->add_flag("--json", a->json, "Same as --format json");
  cmd->callback([a, &g, &code] {
    using report::Format;
    const Format format = a->json ? Format::json
                                  : report::parse_format(a->format, {Format::table, Format::md, Format::csv, Format::json, Format::jsonl});
    auto path = std::filesystem::path(workspace_dir(g)) / "ptxbench.db";
    if (!std::filesystem::exists(path)) throw InputError("no workspace database at " + path.string() + " (run 'ptxbench eval' first)");
    WorkspaceDb db(path);
    if (!db.status().ok) throw InputError(db.status().error);
    if (a->id) {
      StoredRecord r;
      if (auto s = db.get(a->id, &r); !s.ok) throw InputError(s.error);
      if (format == Format::table) {
        const auto p = report::from_record_environment(r.record.environment, r.record.gpu);
        std::cout << format_summary(r.record) << "\nprovenance: ptxbench " << p.harness_version << " (commit " << p.harness_commit
                  << ", dirty " << p.harness_dirty << "), nvcc " << p.nvcc << ", driver " << p.driver << ", GPU " << p.gpu
                  << ", seeds: " << p.seed_policy << "\n";
      } else if (format == Format::json) {
        json j = to_json(r.record);
        j["id"] = r.id;
        std::cout << j.dump(2) << "\n";
      } else {
        // One record in the list's schema.
        const auto rep = report::build_results_report({{r.id, r.record}}, path.string());
        std::cout << (format == Format::md ? report::print_markdown(rep) : format == Format::csv ? report::print_csv(rep) : report::print_jsonl(rep));
      }
      return;
    }
    std::vector<StoredRecord> rows;
    if (auto s = db.list(a->problem, a->limit, &rows); !s.ok) { std::cerr << "ptxbench: " << s.error << "\n"; code.value = 20; return; }
    std::vector<std::pair<long long, EvaluationRecord>> table;
    for (auto& r : rows) table.emplace_back(r.id, std::move(r.record));
    const auto rep = report::build_results_report(table, path.string());
    switch (format) {
      case Format::table: std::cout << report::print_table(rep); break;
      case Format::md: std::cout << report::print_markdown(rep); break;
      case Format::csv: std::cout << report::print_csv(rep); break;
      case Format::json: std::cout << report::print_json(rep); break;
      case Format::jsonl: std::cout << report::print_jsonl(rep); break;
      case Format::html: break;
    }
  });
}

}  // namespace ptxbench::cli

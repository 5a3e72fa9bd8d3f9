// ptxbench problems [NAME]: list the problems, or show one's spec as JSON.
#include <iostream>

#include "cli/commands.h"
#include "problems/registry.h"

namespace ptxbench::cli {

void add_problems_command(CLI::App& app, GlobalOptions& g, ExitCode&) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("problems", "List the problems, or show one (as JSON)");
  cmd->add_option("name", *name, "Problem to show");
  cmd->callback([name, &g] {
    ProblemRegistry registry(g.problems.empty() ? ProblemRegistry::default_root() : std::filesystem::path(g.problems));
    if (!name->empty()) {
      std::cout << registry.load(*name).to_json().dump(2) << "\n";
      return;
    }
    for (const auto& n : registry.names()) {
      auto spec = registry.load(n);
      std::cout << n << "  " << spec.title << "  (" << spec.benchmark_shapes.size() << " benchmark shapes, baseline "
                << spec.baseline << ")\n";
    }
  });
}

}  // namespace ptxbench::cli

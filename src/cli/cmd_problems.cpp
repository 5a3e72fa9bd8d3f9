// ptxbench problems [NAME]: list the problems, or show one's spec as JSON. A spec that does not
// load is reported (file, line, key path, what is wrong) on stderr and makes the exit code 1; the
// good ones are listed all the same.
#include <iostream>

#include "cli/commands.h"
#include "problems/registry.h"

namespace ptxbench::cli {

void add_problems_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("problems", "List the problems (and report bad specs), or show one (as JSON)");
  cmd->add_option("name", *name, "Problem to show");
  cmd->callback([name, &g, &code] {
    ProblemRegistry registry(problems_root(g));
    if (!name->empty()) {
      std::cout << registry.load(*name).to_json().dump(2) << "\n";
      return;
    }
    int bad = 0;
    for (const auto& l : registry.load_all()) {
      if (l.spec) {
        std::cout << l.name << "  " << l.spec->title << "  (" << l.spec->benchmark_shapes.size()
                  << " benchmark shapes, baseline " << l.spec->baseline << ")\n";
      } else {
        ++bad;
        std::cerr << "ptxbench: bad problem spec: " << l.error << "\n";
      }
    }
    if (bad) {
      std::cerr << "ptxbench: " << bad << " problem spec(s) could not be loaded (listed above)\n";
      code.value = 1;
    }
  });
}

}  // namespace ptxbench::cli

// ptxbench problems [NAME] [--suite SUITE] [--suites]: list the problems (or a suite's, with their
// split), list the suites, or show one problem's spec as JSON. A spec that does not load is reported
// (file, line, key path, what is wrong) on stderr and makes the exit code 1; the good ones are
// listed all the same.
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "problems/registry.h"
#include "problems/suite_spec.h"

namespace ptxbench::cli {
namespace {

void print_problem_line(const ProblemSpec& spec, const std::string& split) {
  std::cout << spec.name << "  " << (split.empty() ? "" : "[" + split + "]  ") << spec.title << "  ("
            << spec.benchmark_shapes.size() << " benchmark shapes, baseline " << spec.baseline << ")\n";
}

}  // namespace

void add_problems_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto name = std::make_shared<std::string>();
  auto suite = std::make_shared<std::string>();
  auto list_suites = std::make_shared<bool>(false);
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "problems", "List the problems (and report bad specs), or a suite's with their split, or show one (as JSON)");
  cmd->add_option("name", *name, "Problem to show");
  cmd->add_option("--suite", *suite,
                  "List the problems of this suite (suites/<name>.toml) with their split (train / held-out)");
  cmd->add_flag("--suites", *list_suites, "List the suites");
  cmd->add_flag("--json", *as_json, "With --suite or --suites: print JSON");
  cmd->callback([name, suite, list_suites, as_json, &g, &code] {
    ProblemRegistry registry(problems_root(g));
    if (!name->empty() && (!suite->empty() || *list_suites))
      throw InputError("problems: give a problem name, --suite or --suites, not several");
    if (!name->empty()) {
      std::cout << registry.load(*name).to_json().dump(2) << "\n";
      return;
    }
    if (*list_suites || !suite->empty()) {
      SuiteRegistry suites(SuiteRegistry::default_root(registry.root()));
      if (*list_suites) {
        json all = json::array();
        for (const auto& n : suites.names()) {
          const SuiteSpec s = suites.load(n, registry);
          if (*as_json) all.push_back(s.to_json());
          else
            std::cout << s.name << "  " << s.title << "  (" << s.problems.size() << " trained, " << s.held_out.size()
                      << " held out)\n";
        }
        if (*as_json) std::cout << all.dump(2) << "\n";
        return;
      }
      const SuiteSpec s = suites.load(*suite, registry);
      if (*as_json) {
        std::cout << s.to_json().dump(2) << "\n";
        return;
      }
      const auto splits = s.splits();
      std::cout << "suite " << s.name << ": " << s.title << "\n";
      for (const auto& p : s.evaluated()) print_problem_line(registry.load(p), splits.at(p));
      return;
    }
    int bad = 0;
    for (const auto& l : registry.load_all()) {
      if (l.spec) {
        print_problem_line(*l.spec, "");
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

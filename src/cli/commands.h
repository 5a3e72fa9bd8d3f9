// One file per subcommand; each adds itself to the app and sets the exit code when it runs.
#pragma once
#include <CLI/CLI.hpp>

namespace ptxbench::cli {

struct GlobalOptions {
  std::string workspace;  // empty: $PTXBENCH_WORKSPACE or ./.ptxbench
  std::string problems;   // empty: the default problems root
  bool verbose = false;
};

struct ExitCode {
  int value = 0;
};

void add_eval_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_problems_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_results_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_prompt_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_report_command(CLI::App& app, GlobalOptions& g, ExitCode& code);

std::string workspace_dir(const GlobalOptions& g);

// Accepts the archs in core/arch.h.
CLI::Validator arch_validator();

}  // namespace ptxbench::cli

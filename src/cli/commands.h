// One file per subcommand; each adds itself to the app and sets the exit code when it runs.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>

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
void add_run_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_runs_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_rescore_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_report_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_serve_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_service_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_fixit_command(CLI::App& app, GlobalOptions& g, ExitCode& code);
void add_doctor_command(CLI::App& app, GlobalOptions& g, ExitCode& code);

std::string workspace_dir(const GlobalOptions& g);
std::filesystem::path problems_root(const GlobalOptions& g);
// The workspace database; must_exist: an InputError saying how to create it when it is missing.
std::filesystem::path database_path(const GlobalOptions& g, bool must_exist);

// Exit codes of run/rescore beyond the verdict codes: a run that stopped before finishing (limit,
// quota, infra budget, interruption; resumable) and a store failure.
inline constexpr int kExitRunStopped = 3;
inline constexpr int kExitStoreFailure = 20;

// `ptxbench --version`: harness version and commit, nvcc, the sandbox mechanisms on this host.
std::string version_text();

// Accepts the archs in core/arch.h.
CLI::Validator arch_validator();

}  // namespace ptxbench::cli

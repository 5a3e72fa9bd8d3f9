// ptxbench: judge architecture-specific GPU kernels. See `ptxbench --help`.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <vector>

#include "cli/argv_order.h"
#include "cli/commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  using namespace ptxbench;
  CLI::App app{"PTXBench: judges GPU kernels that use architecture-specific PTX (wgmma, TMA, tcgen05)"};
  app.require_subcommand(1);
  // Global options (--workspace, ...) may also come after the subcommand: `ptxbench run ... --workspace DIR`.
  app.fallthrough();
  cli::GlobalOptions g;
  cli::ExitCode code;
  app.add_option("--workspace", g.workspace,
                 "Workspace folder (database, builds); default $PTXBENCH_WORKSPACE or ./.ptxbench");
  app.add_option("--problems", g.problems, "Problems folder; default $PTXBENCH_PROBLEMS or ./problems");
  // Debug logs (the commands run, each stage, the sandbox) as soon as the flag is read.
  app.add_flag("-v,--verbose", g.verbose, "Log more detail to stderr: commands, stages, the sandbox")
      ->trigger_on_parse()
      ->each([](const std::string&) { spdlog::set_level(spdlog::level::debug); });
  app.set_version_flag("--version", [] { return cli::version_text(); });
  cli::add_eval_command(app, g, code);
  cli::add_problems_command(app, g, code);
  cli::add_results_command(app, g, code);
  cli::add_prompt_command(app, g, code);
  cli::add_run_command(app, g, code);
  cli::add_runs_command(app, g, code);
  cli::add_rescore_command(app, g, code);
  cli::add_report_command(app, g, code);
  cli::add_serve_command(app, g, code);
  cli::add_service_command(app, g, code);
  cli::add_fixit_command(app, g, code);
  cli::add_doctor_command(app, g, code);
  // Progress and logs go to stderr; stdout carries only results (summary or JSON).
  spdlog::set_default_logger(spdlog::stderr_color_mt("ptxbench"));
  spdlog::set_pattern("[ptxbench] %v");
  std::vector<std::string> args(argv + 1, argv + argc);
  std::set<std::string> subcommands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) subcommands.insert(sub->get_name());
  args = cli::options_after_subcommand(
      args, subcommands, {{"--workspace", "--problems"}, {"-v", "--verbose", "--version", "-h", "--help"}});
  std::reverse(args.begin(), args.end());  // CLI11 takes the words last-first
  try {
    app.parse(args);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ptxbench: " << e.what() << "\nRun 'ptxbench --help' for usage.\n";
    return 1;
  } catch (const InputError& e) {
    std::cerr << "ptxbench: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ptxbench: internal error: " << e.what() << "\n";
    return 20;
  }
  return code.value;
}

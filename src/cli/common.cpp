// Helpers shared by the subcommands: the workspace folder and the --arch validator.
#include <cstdlib>

#include "cli/commands.h"
#include "core/arch.h"
#include "core/error.h"
#include "problems/registry.h"

namespace ptxbench::cli {

std::string workspace_dir(const GlobalOptions& g) {
  if (!g.workspace.empty()) return g.workspace;
  if (const char* env = std::getenv("PTXBENCH_WORKSPACE")) return env;
  return ".ptxbench";
}

std::filesystem::path problems_root(const GlobalOptions& g) {
  return g.problems.empty() ? ProblemRegistry::default_root() : std::filesystem::path(g.problems);
}

std::filesystem::path database_path(const GlobalOptions& g, bool must_exist) {
  const auto path = std::filesystem::path(workspace_dir(g)) / "ptxbench.db";
  if (must_exist && !std::filesystem::exists(path))
    throw InputError("no workspace database at " + path.string() +
                     " (give --workspace DIR, or run 'ptxbench run' first)");
  return path;
}

CLI::Validator arch_validator() {
  return CLI::Validator(
      [](std::string& arch) -> std::string {
        try {
          arch_info(arch);
          return {};
        } catch (const InputError& e) {
          return e.what();
        }
      },
      "ARCH");
}

}  // namespace ptxbench::cli

// Helpers shared by the subcommands: the workspace folder and the --arch validator.
#include <cstdlib>

#include "cli/commands.h"
#include "core/arch.h"
#include "core/error.h"

namespace ptxbench::cli {

std::string workspace_dir(const GlobalOptions& g) {
  if (!g.workspace.empty()) return g.workspace;
  if (const char* env = std::getenv("PTXBENCH_WORKSPACE")) return env;
  return ".ptxbench";
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

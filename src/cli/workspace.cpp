#include <cstdlib>

#include "cli/commands.h"

namespace ptxbench::cli {

std::string workspace_dir(const GlobalOptions& g) {
  if (!g.workspace.empty()) return g.workspace;
  if (const char* env = std::getenv("PTXBENCH_WORKSPACE")) return env;
  return ".ptxbench";
}

}  // namespace ptxbench::cli

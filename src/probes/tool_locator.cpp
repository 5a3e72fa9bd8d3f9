// Finds a tool: $<env_var>, then PATH, then /usr/local/cuda/bin/<name>.
#include "probes/tool_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace ptxbench {

std::filesystem::path find_tool(const std::string& name, const std::string& env_var) {
  auto executable = [](const std::filesystem::path& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
  if (const char* env = std::getenv(env_var.c_str()); env && executable(env)) return env;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (executable(std::filesystem::path(dir) / name)) return std::filesystem::path(dir) / name;
  }
  if (auto p = std::filesystem::path("/usr/local/cuda/bin") / name; executable(p)) return p;
  return {};
}

}  // namespace ptxbench

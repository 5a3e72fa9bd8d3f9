// Locates the external tools the build stage runs (nvcc, cuobjdump, objdump) on PATH.
#include "compile/tool_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace ptxbench {

bool is_executable(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

std::filesystem::path find_in_path(const std::string& name) {
  const char* path_env = std::getenv("PATH");
  std::istringstream dirs(path_env ? path_env : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (is_executable(candidate)) return candidate;
  }
  return {};
}

}  // namespace ptxbench

// Locating the external tools the build stage runs (nvcc, cuobjdump, objdump).
#pragma once
#include <filesystem>
#include <string>

namespace ptxbench {

// The first executable file named `name` in $PATH; empty when there is none.
std::filesystem::path find_in_path(const std::string& name);

// True when `path` is a regular file the current user may execute.
bool is_executable(const std::filesystem::path& path);

}  // namespace ptxbench

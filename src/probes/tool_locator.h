#pragma once
#include <filesystem>
#include <string>

namespace ptxbench {
// $<env_var>, then PATH, then /usr/local/cuda/bin/<name>. Empty path when none is executable.
std::filesystem::path find_tool(const std::string& name, const std::string& env_var);
}  // namespace ptxbench

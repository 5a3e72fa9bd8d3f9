// What of a compiler's output may go back to a model: diagnostics of files the candidate may read
// (its folder, its include folders, the system headers), with the candidate's path shown as its
// file name and every other path of the build's view as its base name (a path the candidate wrote
// itself, e.g. in an #include, stays as written). A diagnostic in any other file, with the
// source lines the compiler quotes under it, is withheld: a log never carries host paths or the
// contents of files from outside the candidate.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

struct LogView {
  std::filesystem::path candidate;  // shown as display_name
  std::string display_name = "candidate.cu";
  std::vector<std::filesystem::path> allowed;  // roots whose files' diagnostics are kept
};

// True when `path` (absolute, or relative to the current folder) lies under one of `roots`.
bool path_under(const std::string& path, const std::vector<std::filesystem::path>& roots);

// The name a path is shown as: display_name for the candidate, else its base name.
std::string display_path(const std::string& path, const LogView& view);

std::string sanitize_compiler_log(const std::string& log, const LogView& view);

}  // namespace ptxbench

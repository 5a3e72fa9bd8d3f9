// Files the service writes and finds: candidates stored content-addressed in the workspace, and
// the harness's helper executables beside the running one.
#pragma once
#include <filesystem>
#include <string>

namespace ptxbench {

// <dir>/<sha256><extension> (.cu, or .py for Triton), written whole then renamed (a reader never
// sees a partial file); kept when already there. Throws Error when it cannot be written.
std::filesystem::path write_candidate_file(const std::filesystem::path& dir, const std::string& source,
                                           const std::string& extension = ".cu");

// `name` beside the running executable, or in a bin/ folder next to it or above it; else `name`
// itself (found through PATH).
std::filesystem::path locate_beside_executable(const std::string& name);
// ptxbench-worker, found so.
std::filesystem::path locate_worker();

}  // namespace ptxbench

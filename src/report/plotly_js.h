// Finds plotly.min.js (PyPI's plotly package ships it) for the self-contained HTML report:
// $PTXBENCH_PLOTLY_JS, else the path found when the build was configured, else asking python3
// where its plotly package is. InputError saying how to install it when none is found.
#pragma once
#include <filesystem>
#include <string>

namespace ptxbench::report {

std::filesystem::path find_plotly_js();
// The file's text, checked to be inlinable (no "</script" in it).
std::string read_plotly_js(const std::filesystem::path& path);

}  // namespace ptxbench::report

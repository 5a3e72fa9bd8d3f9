// compute-sanitizer around the worker: memcheck, racecheck and synccheck on a small shape.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

std::filesystem::path find_compute_sanitizer();

inline constexpr int kSanitizerErrorExit = 86;

std::vector<std::string> sanitizer_command_prefix(const std::filesystem::path& tool, const std::string& check);

struct SanitizerFindings {
  long long errors = 0;
  long long warnings = 0;
  bool summary_found = false;
  std::string report;  // the first findings, trimmed
};

// Reads the "ERROR SUMMARY: N errors" / "RACECHECK SUMMARY: ... (N errors, M warnings)" lines and
// keeps the first findings' text.
SanitizerFindings parse_sanitizer_output(const std::string& text);

}  // namespace ptxbench

// compute-sanitizer (memcheck, racecheck, synccheck) around the worker: the command and its findings.
#include "probes/sanitizer_probe.h"

#include <regex>
#include <sstream>

#include "probes/tool_locator.h"

namespace ptxbench {

std::filesystem::path find_compute_sanitizer() { return find_tool("compute-sanitizer", "PTXBENCH_COMPUTE_SANITIZER"); }

std::vector<std::string> sanitizer_command_prefix(const std::filesystem::path& tool, const std::string& check) {
  return {tool.string(),
          "--tool",
          check,
          "--error-exitcode",
          std::to_string(kSanitizerErrorExit),
          "--print-limit",
          "20",
          "--show-backtrace",
          "device"};
}

SanitizerFindings parse_sanitizer_output(const std::string& text) {
  SanitizerFindings f;
  static const std::regex error_summary(R"(ERROR SUMMARY:\s*([0-9]+)\s+error)");
  static const std::regex race_summary(R"(SUMMARY:[^(]*\(([0-9]+)\s+errors?,\s*([0-9]+)\s+warnings?\))");
  std::stringstream ss(text);
  std::string line, report;
  int kept = 0;
  while (std::getline(ss, line)) {
    std::smatch m;
    if (std::regex_search(line, m, error_summary)) {
      f.summary_found = true;
      f.errors = std::max(f.errors, std::stoll(m[1]));
    } else if (std::regex_search(line, m, race_summary)) {
      f.summary_found = true;
      f.errors = std::max(f.errors, std::stoll(m[1]));
      f.warnings = std::max(f.warnings, std::stoll(m[2]));
    }
    if (line.rfind("=========", 0) == 0 && kept < 60 && line.size() > 10) {
      report += line + "\n";
      ++kept;
    }
  }
  f.report = report;
  return f;
}

}  // namespace ptxbench

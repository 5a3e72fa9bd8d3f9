// Checks that make a candidate forbidden: banned constructs in its source, syscall instructions in its host code.
#include <regex>
#include <sstream>

#include "compile/include_check.h"
#include "compile/static_checks.h"
#include "compile/strip_comments.h"
#include "compile/tool_paths.h"
#include "core/subprocess.h"

namespace ptxbench {

std::vector<std::string> scan_source(const std::string& source_text) {
  static const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<std::string> reasons;
  std::istringstream lines(strip_comments(source_text, StringLiterals::keep));
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const size_t first = line.find_first_not_of(" \t");
    std::smatch m;
    if (first == std::string::npos || line[first] != '#' || !std::regex_search(line, m, include)) continue;
    const std::string header = m[2];
    if (auto why = forbidden_header_reason(header); !why.empty()) {
      const std::string spelled = m[1] == "<" ? "<" + header + ">" : "\"" + header + "\"";
      reasons.push_back("line " + std::to_string(number) + ": includes " + spelled + ": " + std::string(why));
    }
  }
  return reasons;
}

std::vector<std::string> scan_host_syscalls(const std::filesystem::path& shared_object, std::string* note) {
  const std::filesystem::path objdump = find_in_path("objdump");
  if (objdump.empty()) {
    if (note) *note = "objdump not found: host code was not checked for raw system calls";
    return {};
  }
  ProcessOptions options;
  options.timeout = std::chrono::minutes(2);
  options.max_output_bytes = size_t{256} << 20;
  const std::vector<std::string> argv{objdump.string(), "-d", "-C", "--no-show-raw-insn", shared_object.string()};
  ProcessResult r = run_process(argv, options);
  if (!r.ok()) {
    if (note) *note = "`" + join_command(argv) + "` failed (" + r.describe() + "): " + r.err.substr(0, 500);
    return {};
  }
  // "0000000000001139 <name>:" opens a function; "    1145:\tsyscall" is one instruction.
  static const std::regex function_header(R"(^[0-9a-f]+ <(.+)>:$)");
  static const std::regex instruction(R"(^\s*[0-9a-f]+:\s+(syscall|sysenter|int\s+\$0x80)\b)");
  std::vector<std::string> reasons;
  std::string function = "?";
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (line.size() > 4096) continue;  // std::regex recurses per character
    if (std::regex_match(line, m, function_header)) {
      function = m[1];
    } else if (std::regex_search(line, m, instruction)) {
      std::string reason = "host function `" + function + "` executes `" + std::string(m[1]) +
                           "` directly: raw system calls are forbidden";
      if (reasons.empty() || reasons.back() != reason) reasons.push_back(reason);
    }
  }
  return reasons;
}

}  // namespace ptxbench

// Parses nvcc/ptxas output into diagnostics (file, line, severity, text), errors ranked first.
#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "compile/nvcc_driver.h"

namespace ptxbench {
namespace {

constexpr size_t kMaxDiagnostics = 50;
constexpr size_t kMaxLineLength = 4096;  // std::regex recurses per character; real diagnostics are shorter

std::string strip_ansi(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
    } else if (line[i] != '\r') {
      out += line[i];
    }
  }
  return out;
}

std::string severity_of(const std::string& word) {
  if (word == "catastrophic error" || word == "fatal error" || word == "fatal") return "fatal";
  return word;  // error, warning, remark
}

std::optional<Diagnostic> parse_line(const std::string& line) {
  // cudafe++ (the CUDA front end): `file.cu(12): error: ...`, `file.cu(3): warning #177-D: ...`
  static const std::regex front_end(
      R"(^(.+?)\((\d+)\): (catastrophic error|error|warning|remark)(?: #\d+(?:-D)?)?: (.*)$)");
  // the host compiler: `file.cu:12:5: error: ...`
  static const std::regex host(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.*)$)");
  // ptxas: `ptxas /tmp/x.ptx, line 33; error   : ...`
  static const std::regex ptxas_at(R"(^ptxas (.+?), line (\d+); (error|warning|fatal)\s*: (.*)$)");
  // `ptxas fatal   : ...`, `nvcc fatal   : ...`, `nvlink error   : ...`
  static const std::regex tool(R"(^(ptxas|nvcc|nvlink|fatbinary|cicc|cudafe\+\+)\s+(error|warning|fatal)\s*: (.*)$)");
  // `collect2: error: ld returned 1 exit status`, `cc1plus: fatal error: ...`, `error: ...`
  static const std::regex bare(R"(^(?:([\w.+/-]+): )?(fatal error|error|warning): (.*)$)");
  // the linker: `/usr/bin/ld: cannot find -lfoo: ...`, `/usr/bin/ld: warning: ...`
  static const std::regex linker(R"(^(?:\S*/)?ld(?:\.\w+)?: (warning: )?(.*)$)");

  std::smatch m;
  if (std::regex_match(line, m, front_end))
    return Diagnostic{m[1], std::stoi(m[2]), 0, severity_of(m[3]), m[4], "cudafe"};
  if (std::regex_match(line, m, host)) {
    const int column = m[3].matched ? std::stoi(m[3]) : 0;
    return Diagnostic{m[1], std::stoi(m[2]), column, severity_of(m[4]), m[5], "host_compiler"};
  }
  if (std::regex_match(line, m, ptxas_at))
    return Diagnostic{m[1], std::stoi(m[2]), 0, severity_of(m[3]), m[4], "ptxas"};
  if (std::regex_match(line, m, tool))
    return Diagnostic{"",
                      0,
                      0,
                      severity_of(m[2]),
                      std::string(m[1]) + ": " + std::string(m[3]),
                      m[1] == "cudafe++" ? "cudafe" : std::string(m[1])};
  if (const size_t at = line.find("undefined reference to "); at != std::string::npos)
    return Diagnostic{"", 0, 0, "error", "ld: " + line.substr(at), "linker"};
  if (std::regex_match(line, m, bare)) {
    const std::string prefix = m[1].matched ? std::string(m[1]) + ": " : "";
    const std::string program = m[1].matched ? std::string(m[1]) : "";
    const std::string tool_name = program == "collect2" || program == "ld"   ? "linker"
                                  : program == "cc1plus" || program == "cc1" ? "host_compiler"
                                  : program.empty()                          ? "nvcc"
                                                                             : program;
    return Diagnostic{"", 0, 0, severity_of(m[2]), prefix + std::string(m[3]), tool_name};
  }
  if (std::regex_match(line, m, linker) && std::string(m[2]).find("in function") == std::string::npos)
    return Diagnostic{"", 0, 0, m[1].matched ? "warning" : "error", "ld: " + std::string(m[2]), "linker"};
  return std::nullopt;
}

int rank(const Diagnostic& d) {
  if (d.severity == "fatal" || d.severity == "error") return 0;
  return d.severity == "warning" ? 1 : 2;
}

}  // namespace

std::vector<Diagnostic> parse_diagnostics(const std::string& log) {
  std::vector<Diagnostic> found;
  std::set<std::tuple<std::string, int, int, std::string, std::string>> seen;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    line = strip_ansi(line);
    if (line.size() > kMaxLineLength) continue;
    auto d = parse_line(line);
    if (!d) continue;
    d->message.erase(d->message.find_last_not_of(" \t") + 1);
    if (seen.insert({d->file, d->line, d->column, d->severity, d->message}).second) found.push_back(*d);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return rank(a) < rank(b); });
  if (found.size() > kMaxDiagnostics) found.resize(kMaxDiagnostics);
  return found;
}

}  // namespace ptxbench

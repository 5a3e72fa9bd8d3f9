// Cuts a compiler log down to what a model may see: diagnostics of its own files, paths shortened.
#include "compile/log_sanitizer.h"

#include <regex>
#include <sstream>

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

fs::path log_normal(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p.lexically_normal() : c;
}

// The file a diagnostic line is about: "F(12): error", "F:12:3: error", "ptxas F, line 3;",
// "In file included from F:3", "                 from F:3". Empty when none.
std::string diagnostic_file(const std::string& line) {
  static const std::regex patterns[] = {
      std::regex(R"(^(\S[^()]*)\((\d+)\): )"),
      std::regex(R"(^(?:In file included from |\s+from )?([^:\s][^:]*):(\d+)(?::\d+)?[:,])"),
      std::regex(R"(^ptxas (\S+), line \d+;)"),
  };
  if (line.size() > 4096) return {};
  std::smatch m;
  for (const auto& re : patterns)
    if (std::regex_search(line, m, re)) return m[1];
  return {};
}

}  // namespace

bool path_under(const std::string& path, const std::vector<fs::path>& roots) {
  const std::string p = log_normal(path).string();
  for (const auto& r : roots) {
    const std::string rs = log_normal(r).string();
    if (p == rs ||
        (p.size() > rs.size() && p.compare(0, rs.size(), rs) == 0 && (rs.back() == '/' || p[rs.size()] == '/')))
      return true;
  }
  return false;
}

std::string display_path(const std::string& path, const LogView& view) {
  if (!view.candidate.empty() && log_normal(path) == log_normal(view.candidate)) return view.display_name;
  return fs::path(path).filename().string();
}

std::string sanitize_compiler_log(const std::string& log, const LogView& view) {
  static const std::regex abs_path(R"((^|[\s'"(=\[])(/[^\s:'"(),;<>\[\]]+))");
  std::ostringstream out;
  std::istringstream in(log);
  bool withholding = false;
  size_t withheld = 0;
  for (std::string line; std::getline(in, line);) {
    const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    const std::string file = diagnostic_file(line);
    const bool about_file =
        !file.empty() && (file.find('/') != std::string::npos || file.find('.') != std::string::npos);
    const bool outside = about_file && fs::path(file).is_absolute() && !path_under(file, view.allowed) &&
                         log_normal(file) != log_normal(view.candidate);
    if (outside) {
      withholding = true;
      ++withheld;
      continue;
    }
    if (withholding && (indented || line.empty()) && !about_file) continue;  // what the compiler quotes under it
    withholding = false;
    std::string mapped;
    auto begin = std::sregex_iterator(line.begin(), line.end(), abs_path), end = std::sregex_iterator();
    size_t at = 0;
    for (auto it = begin; it != end; ++it) {
      mapped += line.substr(at, static_cast<size_t>(it->position()) - at);
      // Paths of the build's own view (the candidate's folder, include folders, the toolkit, the
      // build folder) by name; any other path is one the candidate wrote itself: as written.
      const std::string path = (*it)[2].str();
      const bool ours =
          path_under(path, view.allowed) || (!view.candidate.empty() && log_normal(path) == log_normal(view.candidate));
      mapped += (*it)[1].str() + (ours ? display_path(path, view) : path);
      at = static_cast<size_t>(it->position() + it->length());
    }
    mapped += line.substr(at);
    out << mapped << "\n";
  }
  if (withheld)
    out << "[" << withheld
        << " diagnostic line(s) about files outside the candidate's folder and include folders withheld]\n";
  return out.str();
}

}  // namespace ptxbench

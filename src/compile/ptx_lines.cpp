// Maps a line of the generated PTX back to the candidate's source line through its .loc directives.
#include "compile/ptx_lines.h"

#include <map>
#include <sstream>

namespace ptxbench {

std::optional<SourceLine> ptx_source_line(const std::string& ptx_text, int ptx_line) {
  std::map<int, std::string> files;
  std::optional<std::pair<int, int>> last;  // (file, line) of the last .loc seen
  std::istringstream in(ptx_text);
  int number = 0;
  // `.file` directives come after the code (nvcc puts them at the end); `.loc` before its lines.
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '.') continue;
    std::istringstream words(line.substr(first));
    std::string directive;
    words >> directive;
    if (directive == ".file") {
      int id = 0;
      words >> id;
      const size_t q1 = line.find('"'), q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
      if (q2 != std::string::npos) files[id] = line.substr(q1 + 1, q2 - q1 - 1);
    } else if (directive == ".loc" && number <= ptx_line) {
      int file = 0, src = 0;
      if (words >> file >> src && src > 0) last = {file, src};
    }
  }
  if (!last || !files.count(last->first)) return std::nullopt;
  return SourceLine{files[last->first], last->second};
}

}  // namespace ptxbench

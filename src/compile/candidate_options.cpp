// The nvcc options a candidate may opt into on its first line, checked against a short allowlist.
#include "compile/candidate_options.h"

#include <algorithm>
#include <sstream>

namespace ptxbench {

const std::vector<std::string>& allowed_candidate_options() {
  static const std::vector<std::string> allowed{"-std=c++20", "--expt-relaxed-constexpr", "--expt-extended-lambda",
                                                "-DNDEBUG", "--use_fast_math"};
  return allowed;
}

CandidateOptions parse_candidate_options(const std::string& source) {
  CandidateOptions out;
  std::string line = source.substr(0, source.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 byte-order mark
  if (!line.starts_with(kCandidateOptionsPrefix)) return out;
  std::istringstream words(line.substr(std::string(kCandidateOptionsPrefix).size()));
  const auto& allowed = allowed_candidate_options();
  for (std::string w; words >> w;) {
    if (std::find(allowed.begin(), allowed.end(), w) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : " ") + a;
      out.flags.clear();
      out.error = "line 1: nvcc option '" + w + "' is not allowed (a candidate may ask for: " + list + ")";
      return out;
    }
    if (std::find(out.flags.begin(), out.flags.end(), w) == out.flags.end()) out.flags.push_back(w);
  }
  if (out.flags.empty()) out.error = std::string("line 1: ") + kCandidateOptionsPrefix + " names no option";
  return out;
}

}  // namespace ptxbench

// Parses the dependency list `nvcc -M` prints (Make syntax) into paths.
#include "compile/make_deps.h"

#include <algorithm>

namespace ptxbench {

std::vector<std::string> parse_make_dependencies(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool target_done = false;
  auto flush = [&] {
    if (word.empty()) return;
    if (!target_done) {
      // The first word up to ':' is the target ("x.o:" or "x.o :").
      if (word.back() == ':') {
        target_done = true;
        word.clear();
        return;
      }
      if (word == ":") {
        target_done = true;
        word.clear();
        return;
      }
    } else if (word != ":" && std::find(out.begin(), out.end(), word) == out.end()) {
      out.push_back(word);
    }
    word.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char n = text[i + 1];
      if (n == '\n' || (n == '\r' && i + 2 < text.size() && text[i + 2] == '\n')) {  // continuation
        flush();
        i += n == '\r' ? 2 : 1;
        continue;
      }
      if (n == ' ' || n == '#' || n == '\\') {
        word += n;
        ++i;
        continue;
      }
      word += c;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      word += '$';
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else {
      word += c;
      if (!target_done && c == ':' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\n')) flush();
    }
  }
  flush();
  return out;
}

}  // namespace ptxbench

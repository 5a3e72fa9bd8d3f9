// A markdown code fence of backticks longer than any backtick run in `text`, so the text's own
// backticks can never close the block it is put in (replies from files:, teacher prompts, records).
#pragma once
#include <algorithm>
#include <string>

namespace ptxbench {

inline std::string code_fence_for(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) run = c == '`' ? run + 1 : 0, longest = std::max(longest, run);
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

}  // namespace ptxbench

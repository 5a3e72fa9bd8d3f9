// A kernel's identity for de-duplication: sha256 of its source without comments, whitespace collapsed.
#include "fixit_core/kernel_hash.h"

#include <cctype>

#include "compile/strip_comments.h"
#include "core/content_hash.h"

namespace ptxbench::fixit {

std::string normalized_kernel(const std::string& source) {
  const std::string code = strip_comments(source, StringLiterals::keep);
  std::string out;
  out.reserve(code.size());
  for (char c : code) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string kernel_hash(const std::string& source) { return content_sha256(normalized_kernel(source)); }

}  // namespace ptxbench::fixit

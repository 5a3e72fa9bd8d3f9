// A kernel's identity for de-duplication: sha256 of its source with comments removed and every run
// of whitespace made one space, so a copy that differs only in comments, indentation or line
// endings is the same kernel.
#pragma once
#include <string>

namespace ptxbench::fixit {

std::string normalized_kernel(const std::string& source);
std::string kernel_hash(const std::string& source);

}  // namespace ptxbench::fixit

// The dependency list `nvcc -M` prints (Make syntax: "target: a.cu b.h \\\n  c.h"), as paths.
// nvcc runs both the host and the device preprocessing for it, so a header included only under
// __CUDA_ARCH__, through a macro (#define H <x.h> / #include H) or from another header is listed.
#pragma once
#include <string>
#include <vector>

namespace ptxbench {

// Unescapes "\ " and "$$"; skips the target and line continuations. Never throws.
std::vector<std::string> parse_make_dependencies(const std::string& text);

}  // namespace ptxbench

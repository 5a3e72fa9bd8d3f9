#include "common/gemm/fused_epilogue_check.h"

#include <algorithm>
#include <cctype>

namespace ptxbench::gemm {
namespace {

bool contains(std::string name, const char* part) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find(part) != std::string::npos;
}

// Kernels that only post-process a GEMM's output: split-K reductions, elementwise and activation
// kernels (a GEMM kernel with a fused GELU carries "gemm", "nvjet" or "xmma" in its name as well).
bool is_standalone_epilogue(const std::string& k) {
  if (contains(k, "splitkreduce") || contains(k, "reduce") || contains(k, "elementwise") || contains(k, "unary"))
    return true;
  const bool gemm_like = contains(k, "gemm") || contains(k, "nvjet") || contains(k, "xmma") || contains(k, "cutlass");
  return !gemm_like &&
         (contains(k, "gelu") || contains(k, "bias") || contains(k, "epilogue") || contains(k, "activation"));
}

}  // namespace

std::string why_not_fused_epilogue(const std::vector<std::string>& kernels) {
  if (kernels.empty()) return "it launches no kernel";
  for (const auto& k : kernels)
    if (is_standalone_epilogue(k)) return "it launches a separate epilogue/reduction kernel (" + k + ")";
  if (kernels.size() > 1)
    return "it launches " + std::to_string(kernels.size()) + " kernels (a fused plan launches the GEMM kernel alone)";
  return "";
}

}  // namespace ptxbench::gemm

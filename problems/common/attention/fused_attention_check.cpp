#include "common/attention/fused_attention_check.h"

#include <algorithm>
#include <cctype>

namespace ptxbench::attention {
namespace {

bool contains(std::string name, const char* part) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find(part) != std::string::npos;
}

bool is_attention(const std::string& k) { return contains(k, "sdpa") || contains(k, "flash") || contains(k, "fmha"); }
// "gemm" does not match wgmma/hgmma kernel names ("gmma"); a decomposed plan runs GEMM kernels.
bool is_decomposed(const std::string& k) { return contains(k, "gemm") || contains(k, "softmax"); }
bool is_head_reduction(const std::string& k) { return contains(k, "reduce_head"); }

}  // namespace

std::string attention_kernel(const std::vector<std::string>& kernels) {
  for (const auto& k : kernels)
    if (is_attention(k) && !is_head_reduction(k)) return k;
  return "";
}

std::string why_not_fused_attention(const std::vector<std::string>& kernels, bool grouped) {
  if (kernels.empty()) return "it launches no kernel";
  for (const auto& k : kernels)
    if (is_decomposed(k)) return "it launches a standalone GEMM or softmax kernel (" + k + ")";
  if (attention_kernel(kernels).empty()) return "none of its kernels is an attention (sdpa/flash/fmha) kernel";
  const auto reductions = size_t(std::count_if(kernels.begin(), kernels.end(), is_head_reduction));
  if (reductions > (grouped ? kMaxHeadReductions : 0))
    return "it launches " + std::to_string(reductions) + " head-reduction kernels (" +
           (grouped ? "a grouped plan reduces dK and dV, at most " + std::to_string(kMaxHeadReductions)
                    : std::string("none without grouped K/V")) +
           ")";
  if (kernels.size() - reductions > kMaxFusedKernels)
    return "it launches " + std::to_string(kernels.size() - reductions) + " kernels besides head reductions " +
           "(a fused plan launches at most " + std::to_string(kMaxFusedKernels) + ")";
  return "";
}

}  // namespace ptxbench::attention

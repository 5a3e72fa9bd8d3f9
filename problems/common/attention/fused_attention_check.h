// Whether one cuDNN SDPA execution is the fused flash-attention engine the baseline must be, judged
// from the kernels it launches (captured without running them, see runner/launched_kernels.h).
#pragma once
#include <string>
#include <vector>

namespace ptxbench::attention {

// "" when the kernels are a fused attention plan: at most kMaxFusedKernels kernels, at least one of
// them an attention kernel (cuDNN names them ..._sdpa_..._flash_fprop/bprop_...), none a
// standalone GEMM or softmax (a decomposed plan that materialises the S x S scores). Else why not.
inline constexpr size_t kMaxFusedKernels = 4;  // backward: dO.O row dots, the flash kernel, dQ conversion
std::string why_not_fused_attention(const std::vector<std::string>& kernels);

// The attention kernel among them (the engine that ran), or "" if there is none.
std::string attention_kernel(const std::vector<std::string>& kernels);

}  // namespace ptxbench::attention

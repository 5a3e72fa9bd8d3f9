// Whether one cuDNN SDPA execution is the fused flash-attention engine the baseline must be, judged
// from the kernels it launches (captured without running them, see runner/launched_kernels.h).
#pragma once
#include <string>
#include <vector>

namespace ptxbench::attention {

// "" when the kernels are a fused attention plan: at most kMaxFusedKernels kernels, at least one of
// them an attention kernel (cuDNN names them ..._sdpa_..._flash_fprop/bprop_...), none a
// standalone GEMM or softmax (a decomposed plan that materialises the S x S scores). Else why not.
// With grouped K/V (GQA), cuDNN's backward adds one head reduction per grouped gradient (dK, dV:
// fmha_reduce_head, seen with cuDNN 9.14 on the H200); those are allowed, at most
// kMaxHeadReductions, and only when `grouped`, and do not count towards kMaxFusedKernels.
inline constexpr size_t kMaxFusedKernels = 4;  // backward: dO.O row dots, the flash kernel, dQ conversion
inline constexpr size_t kMaxHeadReductions = 2;
std::string why_not_fused_attention(const std::vector<std::string>& kernels, bool grouped = false);

// The attention kernel among them (the engine that ran), or "" if there is none.
std::string attention_kernel(const std::vector<std::string>& kernels);

}  // namespace ptxbench::attention

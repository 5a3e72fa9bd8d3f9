// Whether one cuBLASLt matmul with an epilogue (e.g. GELU_BIAS) is a fused plan, judged from the
// kernels it launches (captured without running them, see runner/launched_kernels.h): the GEMM
// kernel must apply the epilogue itself, so the plan launches exactly one kernel, and that kernel is
// not a standalone elementwise, reduction (split-K) or activation kernel.
#pragma once
#include <string>
#include <vector>

namespace ptxbench::gemm {

// "" when fused, else why not (naming the offending kernel).
std::string why_not_fused_epilogue(const std::vector<std::string>& kernels);

}  // namespace ptxbench::gemm

// The harness's GEMM reference on the GPU: an fp32 SIMT kernel (exact input products, fp32 sums),
// for bf16 or e4m3 operands, with the epilogues the GEMM problems need. Validated against fp64 on
// the CPU by the self-test. M and N multiples of 128, K of 16.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common/gemm/gemm_dims.h"

namespace ptxbench::gemm {

// out[m, n] = f(sum_k A[m,k] B[n,k]) in fp32, f applied in this order: times *scale_a * *scale_b
// (when given), plus bias[n] (when given), then the tanh GELU of gelu.h (when gelu).
struct Epilogue {
  const float* scale_a = nullptr;  // device scalars
  const float* scale_b = nullptr;
  const __nv_bfloat16* bias = nullptr;  // [N]
  bool gelu = false;
};

void reference_gemm(Operand type, const void* A, const void* B, float* out, const Dims& d, const Epilogue& e,
                    cudaStream_t s);

}  // namespace ptxbench::gemm

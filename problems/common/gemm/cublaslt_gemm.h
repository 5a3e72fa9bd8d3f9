// The GEMM baselines: one cuBLASLt matmul C[M,N] = epilogue(A[M,K] B[N,K]^T) per shape, fp32
// compute, bf16 C, the first heuristic algorithm that fits (32 MiB workspace), with
//   * fp8: A and B e4m3 with per-tensor fp32 scales given as device pointers
//     (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER), fast accumulation off;
//   * gelu_bias: the CUBLASLT_EPILOGUE_GELU_BIAS epilogue with a bf16 bias [N]; the plan must be
//     fused: every heuristic result is captured (runner/launched_kernels, nothing runs) and the first
//     whose kernels pass fused_epilogue_check is used; none: the baseline fails saying what each
//     launched.
// The plan of a shape is built and inspected on its first call (a warm-up, never a timed sample).
// cuBLASLt is created on first use, so sanitizer and probe runs never touch it.
#pragma once
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/gemm/gemm_dims.h"
#include "core/json.h"

namespace ptxbench::gemm {

struct LtOptions {
  Operand operands = Operand::bf16;
  bool gelu_bias = false;
};

class CublasLtGemm {
 public:
  explicit CublasLtGemm(LtOptions o);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Drops the plan (the next run builds one for its shape).
  void reset();
  // scale_a/scale_b: device fp32 scalars (fp8 only); bias: device bf16 [N] (gelu_bias only).
  void run(const void* A, const void* B, void* C, const Dims& d, const float* scale_a, const float* scale_b,
           const void* bias, cudaStream_t s);
  // Library, version, compute, epilogue, and per shape label: the algorithm chosen and its kernels.
  json info() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxbench::gemm

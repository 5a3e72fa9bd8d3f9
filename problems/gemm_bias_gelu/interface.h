// PTXBench GEMM-Bias-GELU problem: the C ABI every candidate implements.
// C[M,N] = GELU(A[M,K] * B[N,K]^T + bias[N]) with the tanh approximation of GELU:
//   GELU(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// bf16 A, B (row-major, both K-major), bias (one value per column n of C) and C (row-major); the
// products, the bias add and the GELU in fp32. Pointers are device pointers; all work must be
// enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_gemm_bias_gelu(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                                    __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

// PTXBench GEMM problem: the C ABI every candidate implements.
// C[M,N] = A[M,K] * B[N,K]^T; bf16 inputs, fp32 accumulation, bf16 output; all row-major
// (both operands K-major). Pointers are device pointers; all work must be enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

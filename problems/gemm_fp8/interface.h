// PTXBench GEMM-FP8 problem: the C ABI every candidate implements.
// C[M,N] = scale_a * scale_b * (A[M,K] * B[N,K]^T): A and B are e4m3 (FP8, 1 sign, 4 exponent,
// 3 mantissa bits, bias 7, max 448), row-major (both K-major), with per-tensor fp32 dequantization
// scales *scale_a and *scale_b (device pointers to one float each); products accumulated in fp32,
// C bf16 row-major. Pointers are device pointers; all work must be enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_gemm_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, const float* scale_a,
                              const float* scale_b, __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

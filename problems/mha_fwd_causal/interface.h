// PTXBench MHA-Fwd-Causal problem: the C ABI every candidate implements.
// Multi-head attention forward with a causal mask: O = softmax(scale * Q K^T + M) V, scale =
// 1/sqrt(D), where query i attends keys 0..i only (M[i][j] = -inf for j > i).
// Q, K, V, O are [B, H, S, D] bf16, row-major (D fastest). LSE is [B, H, S] fp32: the natural-log
// log-sum-exp of each row of scale * Q K^T over the attended keys 0..i.
// Device pointers; all work must be enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                             float* LSE, int B, int H, int S, int D, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

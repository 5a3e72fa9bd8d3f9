// PTXBench GQA-Fwd problem: the C ABI every candidate implements.
// Grouped-query attention forward with a causal mask: Hq query heads share Hkv key/value heads,
// Hq a multiple of Hkv; query head h (0 <= h < Hq) reads key/value head h / (Hq / Hkv).
// O = softmax(scale * Q K^T + M) V, scale = 1/sqrt(D), where query i attends keys 0..i only.
// Q and O are [B, Hq, S, D], K and V [B, Hkv, S, D], all bf16 row-major (D fastest). LSE is
// [B, Hq, S] fp32: the natural-log log-sum-exp of each row of scale * Q K^T over keys 0..i.
// Device pointers; all work must be enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_gqa_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                             float* LSE, int B, int Hq, int Hkv, int S, int D, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

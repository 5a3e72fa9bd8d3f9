// PTXBench MHA-Bwd problem: the C ABI every candidate implements.
// Multi-head attention backward (no mask). With scale = 1/sqrt(D) and P = softmax(scale * Q K^T)
// = exp(scale * Q K^T - LSE), given dO = dLoss/dO it computes
//   dV = P^T dO,  dP = dO V^T,  Delta_i = sum_d dO[i,d] * O[i,d],  dS = P * (dP - Delta),
//   dQ = scale * dS K,  dK = scale * dS^T Q.
// Q, K, V, O, dO, dQ, dK, dV are [B, H, S, D] bf16, row-major (D fastest); LSE is [B, H, S] fp32
// (natural log, as the forward produces it). `workspace` holds at least 4*B*H*S*(D+1) bytes of
// device memory whose contents are undefined on entry. All work must be enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_mha_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                             const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE, __nv_bfloat16* dQ,
                             __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S, int D, void* workspace,
                             size_t workspace_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

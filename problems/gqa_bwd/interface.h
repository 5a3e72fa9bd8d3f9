// PTXBench GQA-Bwd problem: the C ABI every candidate implements.
// Grouped-query attention backward with a causal mask: Hq query heads share Hkv key/value heads,
// Hq a multiple of Hkv, G = Hq / Hkv; query head h reads key/value head h / G. With scale =
// 1/sqrt(D) and, for query head h and kv = h / G, P = exp(scale * Q_h K_kv^T - LSE_h) (0 for key
// j > query i), given dO = dLoss/dO it computes
//   dP = dO_h V_kv^T,  Delta_i = sum_d dO_h[i,d] * O_h[i,d],  dS = P * (dP - Delta),
//   dQ_h = scale * dS K_kv,  dK_kv = scale * sum over the G heads h of the group of dS^T Q_h,
//   dV_kv = sum over the G heads h of the group of P^T dO_h.
// Q, O, dO, dQ are [B, Hq, S, D] and K, V, dK, dV [B, Hkv, S, D], all bf16 row-major (D fastest);
// LSE is [B, Hq, S] fp32 (natural log, as the forward produces it). `workspace` holds at least
// 4*B*Hq*S*(D+1) bytes of device memory whose contents are undefined on entry. All work must be
// enqueued on `stream`.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t ptxbench_gqa_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                             const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE, __nv_bfloat16* dQ,
                             __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int Hq, int Hkv, int S, int D,
                             void* workspace, size_t workspace_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

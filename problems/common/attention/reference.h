// The harness's attention reference on the GPU: fp32 SIMT kernels, written for clarity and
// exactness rather than speed, that the candidates never see. Validated against fp64 on the CPU
// (reference_fp64.h) by the self-test. Requires S a multiple of 64 and D in {64, 128}.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common/attention/attention_dims.h"

namespace ptxbench::attention {

// O (fp32) and LSE = log(sum_j exp(scale * q_i.k_j)) (natural log) over the attended keys.
// Two passes per query tile: the exact row max and sum first, then O with the final weights.
void reference_forward(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, float* O,
                       float* LSE, cudaStream_t s);

// out[row] = sum over D of a[row, :] * b[row, :], in fp32 (Delta = rowsum(dO * O) for the backward).
void row_dots(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out, size_t rows, int D, cudaStream_t s);

// dQ, dK, dV (fp32) from the standard formulas with P = exp(scale * Q K^T - LSE):
// dV = P^T dO, dS = P * (dO V^T - Delta), dQ = scale * dS K, dK = scale * dS^T Q.
void reference_backward(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        const __nv_bfloat16* dO, const float* LSE, const float* Delta, float* dQ, float* dK, float* dV,
                        cudaStream_t s);

// out[i] = bf16(in[i]), round to nearest even.
void round_to_bf16(const float* in, __nv_bfloat16* out, size_t n, cudaStream_t s);

}  // namespace ptxbench::attention

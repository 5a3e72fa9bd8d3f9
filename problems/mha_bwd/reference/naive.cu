#include "interface.h"

// PTXBench MHA-Bwd reference candidate: naive shared-memory tiled SIMT attention backward,
// FlashAttention-2 style, in three kernels, fp32 math, plain FFMA (no tensor cores, no TMA):
//   1. Delta_i = rowsum(dO_i * O_i), into the workspace;
//   2. per 64-key tile: loop over the query tiles, recompute P and dS, accumulate dV = P^T dO and
//      dK = scale * dS^T Q in registers;
//   3. per 64-query tile: loop over the key tiles, recompute dS, accumulate dQ = scale * dS K.
// No atomics, so the result is deterministic. Thread (ty, tx) = (tid / 16, tid % 16) owns tile
// entries (ty + 16a, tx + 16b) and output entries (ty + 16a, tx + 16j). Shared rows read down a
// column are padded to D + 1 floats.

namespace {

// Causal or not: problems/mha_bwd_causal/reference/naive.cu is this file with PTXBENCH_CAUSAL set to 1.
#ifndef PTXBENCH_CAUSAL
#define PTXBENCH_CAUSAL 0
#endif
constexpr bool kCausal = PTXBENCH_CAUSAL;  // query i attends keys 0..i when true
// Grouped-query attention: problems/gqa_bwd/reference/naive.cu is this file with PTXBENCH_GQA (and
// PTXBENCH_CAUSAL) set to 1: query head h reads key/value head h / group (group = Hq / Hkv), and
// dK, dV of a key/value head sum over the group's query heads.
#ifndef PTXBENCH_GQA
#define PTXBENCH_GQA 0
#endif
constexpr bool kGqa = PTXBENCH_GQA;
constexpr int kTile = 64;
constexpr int kThreads = 256;
constexpr int kLd = kTile + 1;  // padded row of a 64x64 tile

template <int D>
__device__ void load_tile(const __nv_bfloat16* __restrict__ src, float* dst) {
  for (int i = threadIdx.x; i < kTile * D; i += kThreads) dst[(i / D) * (D + 1) + i % D] = __bfloat162float(src[i]);
}

// out[a][b] = sum_d A[ty + 16a][d] * B[tx + 16b][d] (both padded to D + 1).
template <int D>
__device__ void tile_product(const float* A, const float* B, float out[4][4]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) out[a][b] = 0.f;
  for (int d = 0; d < D; ++d) {
    float x[4], y[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) x[a] = A[(ty + 16 * a) * (D + 1) + d];
#pragma unroll
    for (int b = 0; b < 4; ++b) y[b] = B[(tx + 16 * b) * (D + 1) + d];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) out[a][b] = fmaf(x[a], y[b], out[a][b]);
  }
}

// P and dS of one (query tile q0, key tile k0) pair; rows are queries, columns keys.
template <int D>
__device__ void probabilities_and_grads(const float* q_tile, const float* do_tile, const float* k_tile,
                                        const float* v_tile, const float* lse, const float* delta, int q0, int k0,
                                        float scale, float p[4][4], float ds[4][4]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float dp[4][4];
  tile_product<D>(q_tile, k_tile, p);
  tile_product<D>(do_tile, v_tile, dp);
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int r = ty + 16 * a, c = tx + 16 * b;
      p[a][b] = (kCausal && k0 + c > q0 + r) ? 0.f : expf(p[a][b] * scale - lse[r]);
      ds[a][b] = p[a][b] * (dp[a][b] - delta[r]);
    }
}

__global__ void delta_kernel(const __nv_bfloat16* __restrict__ O, const __nv_bfloat16* __restrict__ dO,
                             float* __restrict__ delta, size_t rows, int D) {
  const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float acc = 0.f;
  for (int d = lane; d < D; d += 32) acc += __bfloat162float(O[row * D + d]) * __bfloat162float(dO[row * D + d]);
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) delta[row] = acc;
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    dk_dv_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                 const __nv_bfloat16* __restrict__ V, const __nv_bfloat16* __restrict__ dO,
                 const float* __restrict__ LSE, const float* __restrict__ Delta, __nv_bfloat16* __restrict__ dK,
                 __nv_bfloat16* __restrict__ dV, int S, float scale, int group) {
  extern __shared__ float smem[];
  float* k_tile = smem;
  float* v_tile = k_tile + kTile * (D + 1);
  float* q_tile = v_tile + kTile * (D + 1);
  float* do_tile = q_tile + kTile * (D + 1);
  float* p_tile = do_tile + kTile * (D + 1);
  float* ds_tile = p_tile + kTile * kLd;
  float* lse = ds_tile + kTile * kLd;
  float* delta = lse + kTile;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int k0 = blockIdx.x * kTile;
  const size_t kv_head = (size_t)blockIdx.y * S;  // key/value head b*Hkv + hk
  const int groups = kGqa ? group : 1;            // query heads reading it: b*Hq + hk*groups + g
  load_tile<D>(K + (kv_head + k0) * D, k_tile);
  load_tile<D>(V + (kv_head + k0) * D, v_tile);

  float acc_dv[4][D / 16], acc_dk[4][D / 16];  // rows: keys ty + 16a
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int j = 0; j < D / 16; ++j) acc_dv[a][j] = acc_dk[a][j] = 0.f;

  for (int gh = 0; gh < groups; ++gh) {
    const size_t head = ((size_t)blockIdx.y * groups + gh) * S;  // query head
    for (int q0 = kCausal ? k0 : 0; q0 < S; q0 += kTile) {
      __syncthreads();
      load_tile<D>(Q + (head + q0) * D, q_tile);
      load_tile<D>(dO + (head + q0) * D, do_tile);
      if (threadIdx.x < kTile) {
        lse[threadIdx.x] = LSE[head + q0 + threadIdx.x];
        delta[threadIdx.x] = Delta[head + q0 + threadIdx.x];
      }
      __syncthreads();
      float p[4][4], ds[4][4];
      probabilities_and_grads<D>(q_tile, do_tile, k_tile, v_tile, lse, delta, q0, k0, scale, p, ds);
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          p_tile[(ty + 16 * a) * kLd + tx + 16 * b] = p[a][b];
          ds_tile[(ty + 16 * a) * kLd + tx + 16 * b] = ds[a][b];
        }
      __syncthreads();
      for (int r = 0; r < kTile; ++r) {
        float pr[4], dsr[4];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          pr[a] = p_tile[r * kLd + ty + 16 * a];
          dsr[a] = ds_tile[r * kLd + ty + 16 * a];
        }
#pragma unroll
        for (int j = 0; j < D / 16; ++j) {
          const float g = do_tile[r * (D + 1) + tx + 16 * j], q = q_tile[r * (D + 1) + tx + 16 * j];
#pragma unroll
          for (int a = 0; a < 4; ++a) {
            acc_dv[a][j] = fmaf(pr[a], g, acc_dv[a][j]);
            acc_dk[a][j] = fmaf(dsr[a], q, acc_dk[a][j]);
          }
        }
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const size_t row = kv_head + k0 + ty + 16 * a;
#pragma unroll
    for (int j = 0; j < D / 16; ++j) {
      dV[row * D + tx + 16 * j] = __float2bfloat16(acc_dv[a][j]);
      dK[row * D + tx + 16 * j] = __float2bfloat16(acc_dk[a][j] * scale);
    }
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    dq_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
              const __nv_bfloat16* __restrict__ V, const __nv_bfloat16* __restrict__ dO, const float* __restrict__ LSE,
              const float* __restrict__ Delta, __nv_bfloat16* __restrict__ dQ, int S, float scale, int group) {
  extern __shared__ float smem[];
  float* q_tile = smem;
  float* do_tile = q_tile + kTile * (D + 1);
  float* k_tile = do_tile + kTile * (D + 1);
  float* v_tile = k_tile + kTile * (D + 1);
  float* ds_tile = v_tile + kTile * (D + 1);
  float* lse = ds_tile + kTile * kLd;
  float* delta = lse + kTile;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int q0 = blockIdx.x * kTile;
  const size_t head = (size_t)blockIdx.y * S;                             // query head b*Hq + h
  const size_t kv_head = kGqa ? (size_t)(blockIdx.y / group) * S : head;  // its key/value head
  load_tile<D>(Q + (head + q0) * D, q_tile);
  load_tile<D>(dO + (head + q0) * D, do_tile);
  if (threadIdx.x < kTile) {
    lse[threadIdx.x] = LSE[head + q0 + threadIdx.x];
    delta[threadIdx.x] = Delta[head + q0 + threadIdx.x];
  }
  float acc[4][D / 16];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int j = 0; j < D / 16; ++j) acc[a][j] = 0.f;

  const int k_end = kCausal ? q0 + kTile : S;
  for (int k0 = 0; k0 < k_end; k0 += kTile) {
    __syncthreads();
    load_tile<D>(K + (kv_head + k0) * D, k_tile);
    load_tile<D>(V + (kv_head + k0) * D, v_tile);
    __syncthreads();
    float p[4][4], ds[4][4];
    probabilities_and_grads<D>(q_tile, do_tile, k_tile, v_tile, lse, delta, q0, k0, scale, p, ds);
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) ds_tile[(ty + 16 * a) * kLd + tx + 16 * b] = ds[a][b];
    __syncthreads();
    for (int c = 0; c < kTile; ++c) {
      float g[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) g[a] = ds_tile[(ty + 16 * a) * kLd + c];
#pragma unroll
      for (int j = 0; j < D / 16; ++j) {
        const float k = k_tile[c * (D + 1) + tx + 16 * j];
#pragma unroll
        for (int a = 0; a < 4; ++a) acc[a][j] = fmaf(g[a], k, acc[a][j]);
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int j = 0; j < D / 16; ++j)
      dQ[(head + q0 + ty + 16 * a) * D + tx + 16 * j] = __float2bfloat16(acc[a][j] * scale);
}

template <int D>
cudaError_t launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,
                   const __nv_bfloat16* dO, const float* LSE, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV,
                   int B, int H, int S, int group, float* delta, cudaStream_t stream) {
  const size_t rows = (size_t)B * H * S;
  const float scale = 1.0f / sqrtf((float)D);
  delta_kernel<<<(unsigned)((rows * 32 + 255) / 256), 256, 0, stream>>>(O, dO, delta, rows, D);
  const int kv_smem = (int)sizeof(float) * (4 * kTile * (D + 1) + 2 * kTile * kLd + 2 * kTile);
  const int q_smem = (int)sizeof(float) * (4 * kTile * (D + 1) + kTile * kLd + 2 * kTile);
  cudaError_t e = cudaFuncSetAttribute(dk_dv_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kv_smem);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(dq_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, q_smem);
  if (e != cudaSuccess) return e;
  dim3 kv_grid(S / kTile, B * (H / group)), q_grid(S / kTile, B * H);
  dk_dv_kernel<D><<<kv_grid, kThreads, kv_smem, stream>>>(Q, K, V, dO, LSE, delta, dK, dV, S, scale, group);
  dq_kernel<D><<<q_grid, kThreads, q_smem, stream>>>(Q, K, V, dO, LSE, delta, dQ, S, scale, group);
  return cudaGetLastError();
}

}  // namespace

#if PTXBENCH_GQA
extern "C" cudaError_t ptxbench_gqa_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                        __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int Hkv,
                                        int S, int D, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (Hkv <= 0 || H % Hkv) return cudaErrorInvalidValue;
  const int group = H / Hkv;
#else
extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                        __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S,
                                        int D, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  const int group = 1;
#endif
  if (B <= 0 || H <= 0 || S <= 0 || S % kTile) return cudaErrorInvalidValue;
  if (workspace_bytes < sizeof(float) * (size_t)B * H * S) return cudaErrorInvalidValue;
  float* delta = static_cast<float*>(workspace);  // written by the first kernel: no initialization needed
  if (D == 64) return launch<64>(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, group, delta, stream);
  if (D == 128) return launch<128>(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, group, delta, stream);
  return cudaErrorInvalidValue;
}

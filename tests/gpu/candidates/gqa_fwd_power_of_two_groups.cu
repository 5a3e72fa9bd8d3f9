#include "interface.h"

// PTXBench GPU-test candidate (GQA-Fwd): RIGHT ONLY ON THE LISTED SHAPES.
// Meant to provoke: the correctness check must fail on the hidden shapes whose group size G =
// Hq/Hkv is not a power of two (3, 5, 7). Every benchmark shape has G = 4 or 8, so the naive causal
// flash attention finds the key/value head with a shift by log2(G) (G rounded down to a power of
// two), which is right on every listed shape; elsewhere it reads the wrong head, never past the last
// one (clamped: wrong results, not an out-of-bounds read, so the verdict is `incorrect` whatever
// hidden shape is drawn).

namespace {

constexpr bool kCausal = true;  // query i attends keys 0..i
constexpr int kTile = 64;
constexpr int kThreads = 256;

template <int D>
__device__ void load_tile(const __nv_bfloat16* __restrict__ src, float* dst, int ld) {
  for (int i = threadIdx.x; i < kTile * D; i += kThreads) dst[(i / D) * ld + i % D] = __bfloat162float(src[i]);
}

__device__ float row_max16(float v) {
  for (int o = 8; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float row_sum16(float v) {
  for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kThreads)
attention_forward(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                  const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, float* __restrict__ LSE,
                  int S, float scale, int log2_group, int kv_heads) {
  extern __shared__ float smem[];
  float* q_tile = smem;                      // [64][D + 1]
  float* k_tile = q_tile + kTile * (D + 1);  // [64][D + 1]
  float* v_tile = k_tile + kTile * (D + 1);  // [64][D]
  float* p_tile = v_tile + kTile * D;        // [64][65]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int q0 = blockIdx.x * kTile;
  const size_t head = (size_t)blockIdx.y * S;                               // query head b*Hq + h
  // Right only for G a power of two.
  const size_t kv_head = (size_t)min((int)(blockIdx.y >> log2_group), kv_heads - 1) * S;
  load_tile<D>(Q + (head + q0) * D, q_tile, D + 1);

  float m[4], l[4], acc[4][D / 16];
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    m[a] = -INFINITY;
    l[a] = 0.f;
#pragma unroll
    for (int j = 0; j < D / 16; ++j) acc[a][j] = 0.f;
  }
  const int key_tiles = kCausal ? blockIdx.x + 1 : S / kTile;
  for (int kt = 0; kt < key_tiles; ++kt) {
    const int k0 = kt * kTile;
    __syncthreads();  // the previous tile is no longer read
    load_tile<D>(K + (kv_head + k0) * D, k_tile, D + 1);
    load_tile<D>(V + (kv_head + k0) * D, v_tile, D);
    __syncthreads();

    float s[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) s[a][b] = 0.f;
    for (int d = 0; d < D; ++d) {
      float x[4], y[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) x[a] = q_tile[(ty + 16 * a) * (D + 1) + d];
#pragma unroll
      for (int b = 0; b < 4; ++b) y[b] = k_tile[(tx + 16 * b) * (D + 1) + d];
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) s[a][b] = fmaf(x[a], y[b], s[a][b]);
    }

#pragma unroll
    for (int a = 0; a < 4; ++a) {
      const int row = q0 + ty + 16 * a;
      float tile_max = -INFINITY;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int col = k0 + tx + 16 * b;
        s[a][b] = (kCausal && col > row) ? -INFINITY : s[a][b] * scale;
        tile_max = fmaxf(tile_max, s[a][b]);
      }
      const float m_new = fmaxf(m[a], row_max16(tile_max));  // finite: key 0 is always attended
      const float correction = expf(m[a] - m_new);
      float sum = 0.f;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const float p = expf(s[a][b] - m_new);
        p_tile[(ty + 16 * a) * (kTile + 1) + tx + 16 * b] = p;
        sum += p;
      }
      l[a] = l[a] * correction + row_sum16(sum);
      m[a] = m_new;
#pragma unroll
      for (int j = 0; j < D / 16; ++j) acc[a][j] *= correction;
    }
    __syncthreads();  // the P tile is complete

    for (int k = 0; k < kTile; ++k) {
      float p[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) p[a] = p_tile[(ty + 16 * a) * (kTile + 1) + k];
#pragma unroll
      for (int j = 0; j < D / 16; ++j) {
        const float v = v_tile[k * D + tx + 16 * j];
#pragma unroll
        for (int a = 0; a < 4; ++a) acc[a][j] = fmaf(p[a], v, acc[a][j]);
      }
    }
  }

#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const size_t row = head + q0 + ty + 16 * a;
#pragma unroll
    for (int j = 0; j < D / 16; ++j) O[row * D + tx + 16 * j] = __float2bfloat16(acc[a][j] / l[a]);
    if (tx == 0) LSE[row] = m[a] + logf(l[a]);
  }
}

template <int D>
cudaError_t launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                   float* LSE, int B, int H, int Hkv, int S, int log2_group, cudaStream_t stream) {
  const int smem = (int)sizeof(float) * (2 * kTile * (D + 1) + kTile * D + kTile * (kTile + 1));
  cudaError_t e = cudaFuncSetAttribute(attention_forward<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e != cudaSuccess) return e;
  dim3 grid(S / kTile, B * H);
  attention_forward<D><<<grid, kThreads, smem, stream>>>(Q, K, V, O, LSE, S, 1.0f / sqrtf((float)D), log2_group,
                                                         B * Hkv);
  return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t ptxbench_gqa_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int Hkv, int S, int D,
                                        cudaStream_t stream) {
  if (Hkv <= 0 || H % Hkv) return cudaErrorInvalidValue;
  const int log2_group = 31 - __builtin_clz(H / Hkv);  // log2 of the group size, rounded down
  if (B <= 0 || H <= 0 || S <= 0 || S % kTile) return cudaErrorInvalidValue;
  if (D == 64) return launch<64>(Q, K, V, O, LSE, B, H, Hkv, S, log2_group, stream);
  if (D == 128) return launch<128>(Q, K, V, O, LSE, B, H, Hkv, S, log2_group, stream);
  return cudaErrorInvalidValue;
}

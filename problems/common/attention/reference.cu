#include "common/attention/reference.h"

#include "core/error.h"
#include "runner/detail/cuda_check.h"

// Every kernel works on 64x64 tiles with 256 threads: thread (ty, tx) = (tid / 16, tid % 16) owns
// the 4x4 tile entries (ty + 16a, tx + 16b), and the 4 x D/16 output entries (ty + 16a, tx + 16j).
// Shared-memory rows that are read down a column are padded to D + 1 floats (no bank conflicts).
// The 16 threads that share a ty are one half-warp, so row reductions are xor-shuffles below 16.
namespace ptxbench::attention {
namespace {

constexpr int T = 64;  // tile edge (queries and keys)
constexpr int kThreads = 256;
constexpr int LP = T + 1;  // padded row of a 64x64 tile

template <int D>
__device__ void load_tile(const __nv_bfloat16* src, float* dst, int ld) {
  for (int i = threadIdx.x; i < T * D; i += kThreads) dst[(i / D) * ld + i % D] = __bfloat162float(src[i]);
}

__device__ float half_warp_max(float v) {
  for (int o = 8; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float half_warp_sum(float v) {
  for (int o = 8; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// acc[a][b] = sum_d A[ty+16a][d] * B[tx+16b][d], both padded to D + 1.
template <int D>
__device__ void tile_dots(const float* A, const float* B, float acc[4][4]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc[a][b] = 0.f;
  for (int k = 0; k < D; ++k) {
    float x[4], y[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) x[a] = A[(ty + 16 * a) * (D + 1) + k];
#pragma unroll
    for (int b = 0; b < 4; ++b) y[b] = B[(tx + 16 * b) * (D + 1) + k];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) acc[a][b] = fmaf(x[a], y[b], acc[a][b]);
  }
}

// Fwd: grid (S/64, B*H). Pass 1: exact row max m and sum l (rescaled per tile); LSE = m + log l.
// Pass 2: P = exp(s - LSE), O = P V.
template <int D, bool CAUSAL>
__global__ void __launch_bounds__(kThreads)
    forward_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, float* O, float* LSE, int S,
                   int group, float scale) {
  extern __shared__ float smem[];
  float* Qs = smem;
  float* Ks = Qs + T * (D + 1);
  float* Vs = Ks + T * (D + 1);  // unpadded: read along rows
  float* Ps = Vs + T * D;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int qt = blockIdx.x, q0 = qt * T;
  const size_t head = size_t(blockIdx.y) * S;             // query head (b*H + h)
  const size_t kv_head = size_t(blockIdx.y / group) * S;  // its key/value head (b*Hkv + h/group)
  const int tiles = CAUSAL ? qt + 1 : S / T;
  load_tile<D>(Q + (head + q0) * D, Qs, D + 1);

  float m[4], l[4];
#pragma unroll
  for (int a = 0; a < 4; ++a) m[a] = -INFINITY, l[a] = 0.f;
  for (int kt = 0; kt < tiles; ++kt) {
    __syncthreads();
    load_tile<D>(K + (kv_head + kt * T) * D, Ks, D + 1);
    __syncthreads();
    float s[4][4];
    tile_dots<D>(Qs, Ks, s);
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      float tmax = -INFINITY;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const bool masked = CAUSAL && kt * T + tx + 16 * b > q0 + ty + 16 * a;
        s[a][b] = masked ? -INFINITY : s[a][b] * scale;
        tmax = fmaxf(tmax, s[a][b]);
      }
      const float mnew = fmaxf(m[a], half_warp_max(tmax));
      float sum = 0.f;
#pragma unroll
      for (int b = 0; b < 4; ++b) sum += expf(s[a][b] - mnew);
      l[a] = l[a] * expf(m[a] - mnew) + half_warp_sum(sum);
      m[a] = mnew;
    }
  }
  float lse[4];
#pragma unroll
  for (int a = 0; a < 4; ++a) lse[a] = m[a] + logf(l[a]);

  float acc[4][D / 16] = {};
  for (int kt = 0; kt < tiles; ++kt) {
    __syncthreads();
    load_tile<D>(K + (kv_head + kt * T) * D, Ks, D + 1);
    load_tile<D>(V + (kv_head + kt * T) * D, Vs, D);
    __syncthreads();
    float s[4][4];
    tile_dots<D>(Qs, Ks, s);
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const bool masked = CAUSAL && kt * T + tx + 16 * b > q0 + ty + 16 * a;
        Ps[(ty + 16 * a) * LP + tx + 16 * b] = masked ? 0.f : expf(s[a][b] * scale - lse[a]);
      }
    __syncthreads();
    for (int k = 0; k < T; ++k) {
      float p[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) p[a] = Ps[(ty + 16 * a) * LP + k];
#pragma unroll
      for (int j = 0; j < D / 16; ++j) {
        const float v = Vs[k * D + tx + 16 * j];
#pragma unroll
        for (int a = 0; a < 4; ++a) acc[a][j] = fmaf(p[a], v, acc[a][j]);
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const size_t row = head + q0 + ty + 16 * a;
#pragma unroll
    for (int j = 0; j < D / 16; ++j) O[row * D + tx + 16 * j] = acc[a][j];
    if (tx == 0) LSE[row] = lse[a];
  }
}

// For one 64x64 (query tile qt, key tile kt) block, with Qs, dOs, Ks, Vs loaded (padded) and the
// query rows' LSE and Delta in smem: P and dS into p[a][b], ds[a][b] (rows queries, cols keys).
template <int D, bool CAUSAL>
__device__ void p_and_ds(const float* Qs, const float* dOs, const float* Ks, const float* Vs, const float* lse,
                         const float* delta, int q0, int k0, float scale, float p[4][4], float ds[4][4]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float dp[4][4];
  tile_dots<D>(Qs, Ks, p);
  tile_dots<D>(dOs, Vs, dp);
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int r = ty + 16 * a, c = tx + 16 * b;
      const bool masked = CAUSAL && k0 + c > q0 + r;
      p[a][b] = masked ? 0.f : expf(p[a][b] * scale - lse[r]);
      ds[a][b] = p[a][b] * (dp[a][b] - delta[r]);
    }
}

__device__ void load_row_stats(const float* LSE, const float* Delta, size_t row0, float* lse, float* delta) {
  if (threadIdx.x < T) lse[threadIdx.x] = LSE[row0 + threadIdx.x], delta[threadIdx.x] = Delta[row0 + threadIdx.x];
}

// dK, dV: grid (S/64 key tiles, B*Hkv); loops over the query heads of the key/value head's group
// and, for each, over the query tiles that attend the key tile (dK and dV sum over the group).
template <int D, bool CAUSAL>
__global__ void __launch_bounds__(kThreads)
    dkdv_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
                const float* LSE, const float* Delta, float* dK, float* dV, int S, int group, float scale) {
  extern __shared__ float smem[];
  float* Ks = smem;
  float* Vs = Ks + T * (D + 1);
  float* Qs = Vs + T * (D + 1);
  float* dOs = Qs + T * (D + 1);
  float* Ps = dOs + T * (D + 1);
  float* dSs = Ps + T * LP;
  float* lse = dSs + T * LP;
  float* delta = lse + T;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int kt = blockIdx.x, k0 = kt * T;
  const size_t kv_head = size_t(blockIdx.y) * S;  // key/value head (b*Hkv + hk)
  load_tile<D>(K + (kv_head + k0) * D, Ks, D + 1);
  load_tile<D>(V + (kv_head + k0) * D, Vs, D + 1);
  float acc_v[4][D / 16] = {}, acc_k[4][D / 16] = {};          // rows: keys ty + 16a
  const int qt0 = CAUSAL ? kt : 0, query_tiles = S / T - qt0;  // per query head of the group
  for (int it = 0; it < group * query_tiles; ++it) {
    const int qt = qt0 + it % query_tiles;
    const size_t head = (size_t(blockIdx.y) * group + it / query_tiles) * S;  // query head b*H + hk*group + it/tiles
    const int q0 = qt * T;
    __syncthreads();
    load_tile<D>(Q + (head + q0) * D, Qs, D + 1);
    load_tile<D>(dO + (head + q0) * D, dOs, D + 1);
    load_row_stats(LSE, Delta, head + q0, lse, delta);
    __syncthreads();
    float p[4][4], ds[4][4];
    p_and_ds<D, CAUSAL>(Qs, dOs, Ks, Vs, lse, delta, q0, k0, scale, p, ds);
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        Ps[(ty + 16 * a) * LP + tx + 16 * b] = p[a][b];
        dSs[(ty + 16 * a) * LP + tx + 16 * b] = ds[a][b];
      }
    __syncthreads();
    for (int r = 0; r < T; ++r) {
      float pr[4], dsr[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) pr[a] = Ps[r * LP + ty + 16 * a], dsr[a] = dSs[r * LP + ty + 16 * a];
#pragma unroll
      for (int j = 0; j < D / 16; ++j) {
        const float g = dOs[r * (D + 1) + tx + 16 * j], q = Qs[r * (D + 1) + tx + 16 * j];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          acc_v[a][j] = fmaf(pr[a], g, acc_v[a][j]);
          acc_k[a][j] = fmaf(dsr[a], q, acc_k[a][j]);
        }
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const size_t row = kv_head + k0 + ty + 16 * a;
#pragma unroll
    for (int j = 0; j < D / 16; ++j) {
      dV[row * D + tx + 16 * j] = acc_v[a][j];
      dK[row * D + tx + 16 * j] = acc_k[a][j] * scale;
    }
  }
}

// dQ: grid (S/64 query tiles, B*H); loops over the key tiles (of its key/value head) the query tile attends.
template <int D, bool CAUSAL>
__global__ void __launch_bounds__(kThreads)
    dq_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
              const float* LSE, const float* Delta, float* dQ, int S, int group, float scale) {
  extern __shared__ float smem[];
  float* Qs = smem;
  float* dOs = Qs + T * (D + 1);
  float* Ks = dOs + T * (D + 1);
  float* Vs = Ks + T * (D + 1);
  float* dSs = Vs + T * (D + 1);
  float* lse = dSs + T * LP;
  float* delta = lse + T;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int qt = blockIdx.x, q0 = qt * T;
  const size_t head = size_t(blockIdx.y) * S;
  const size_t kv_head = size_t(blockIdx.y / group) * S;
  load_tile<D>(Q + (head + q0) * D, Qs, D + 1);
  load_tile<D>(dO + (head + q0) * D, dOs, D + 1);
  load_row_stats(LSE, Delta, head + q0, lse, delta);
  float acc[4][D / 16] = {};
  for (int kt = 0; kt < (CAUSAL ? qt + 1 : S / T); ++kt) {
    const int k0 = kt * T;
    __syncthreads();
    load_tile<D>(K + (kv_head + k0) * D, Ks, D + 1);
    load_tile<D>(V + (kv_head + k0) * D, Vs, D + 1);
    __syncthreads();
    float p[4][4], ds[4][4];
    p_and_ds<D, CAUSAL>(Qs, dOs, Ks, Vs, lse, delta, q0, k0, scale, p, ds);
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) dSs[(ty + 16 * a) * LP + tx + 16 * b] = ds[a][b];
    __syncthreads();
    for (int c = 0; c < T; ++c) {
      float g[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) g[a] = dSs[(ty + 16 * a) * LP + c];
#pragma unroll
      for (int j = 0; j < D / 16; ++j) {
        const float k = Ks[c * (D + 1) + tx + 16 * j];
#pragma unroll
        for (int a = 0; a < 4; ++a) acc[a][j] = fmaf(g[a], k, acc[a][j]);
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int j = 0; j < D / 16; ++j) dQ[(head + q0 + ty + 16 * a) * D + tx + 16 * j] = acc[a][j] * scale;
}

__global__ void row_dots_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out, size_t rows, int D) {
  const size_t row = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float acc = 0.f;
  for (int d = lane; d < D; d += 32)
    acc = fmaf(__bfloat162float(a[row * D + d]), __bfloat162float(b[row * D + d]), acc);
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) out[row] = acc;
}

__global__ void round_kernel(const float* in, __nv_bfloat16* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16_rn(in[i]);
}

template <typename Kernel>
void launch(Kernel k, dim3 grid, size_t smem, cudaStream_t s, auto... args) {
  PTXBENCH_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  k<<<grid, kThreads, smem, s>>>(args...);
  PTXBENCH_CUDA(cudaGetLastError());
}

void require_supported(const Dims& d) {
  if (d.S % T || (d.D != 64 && d.D != 128) || d.S <= 0 || d.B <= 0 || d.H <= 0)
    fail("attention reference: needs S a multiple of 64 and D 64 or 128, got S=" + std::to_string(d.S) +
         " D=" + std::to_string(d.D));
  if (d.kv_heads_per_batch() <= 0 || d.H % d.kv_heads_per_batch())
    fail("attention reference: the query heads (" + std::to_string(d.H) +
         ") must be a multiple of the key/value heads (" + std::to_string(d.kv_heads_per_batch()) + ")");
}

template <int D, bool CAUSAL>
void forward_impl(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, float* O,
                  float* LSE, cudaStream_t s) {
  const size_t smem = sizeof(float) * (2 * T * (D + 1) + T * D + T * LP);
  launch(forward_kernel<D, CAUSAL>, dim3(d.S / T, unsigned(d.heads())), smem, s, Q, K, V, O, LSE, d.S, d.group(),
         d.scale());
}

template <int D, bool CAUSAL>
void backward_impl(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                   const __nv_bfloat16* dO, const float* LSE, const float* Delta, float* dQ, float* dK, float* dV,
                   cudaStream_t s) {
  const size_t kv_smem = sizeof(float) * (4 * T * (D + 1) + 2 * T * LP + 2 * T);
  launch(dkdv_kernel<D, CAUSAL>, dim3(d.S / T, unsigned(d.kv_heads())), kv_smem, s, Q, K, V, dO, LSE, Delta, dK, dV,
         d.S, d.group(), d.scale());
  const size_t q_smem = sizeof(float) * (4 * T * (D + 1) + T * LP + 2 * T);
  launch(dq_kernel<D, CAUSAL>, dim3(d.S / T, unsigned(d.heads())), q_smem, s, Q, K, V, dO, LSE, Delta, dQ, d.S,
         d.group(), d.scale());
}

}  // namespace

void reference_forward(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, float* O,
                       float* LSE, cudaStream_t s) {
  require_supported(d);
  if (d.D == 64) (d.causal ? forward_impl<64, true> : forward_impl<64, false>)(d, Q, K, V, O, LSE, s);
  else (d.causal ? forward_impl<128, true> : forward_impl<128, false>)(d, Q, K, V, O, LSE, s);
}

void reference_backward(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        const __nv_bfloat16* dO, const float* LSE, const float* Delta, float* dQ, float* dK, float* dV,
                        cudaStream_t s) {
  require_supported(d);
  if (d.D == 64)
    (d.causal ? backward_impl<64, true> : backward_impl<64, false>)(d, Q, K, V, dO, LSE, Delta, dQ, dK, dV, s);
  else (d.causal ? backward_impl<128, true> : backward_impl<128, false>)(d, Q, K, V, dO, LSE, Delta, dQ, dK, dV, s);
}

void row_dots(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out, size_t rows, int D, cudaStream_t s) {
  row_dots_kernel<<<unsigned((rows * 32 + 255) / 256), 256, 0, s>>>(a, b, out, rows, D);
  PTXBENCH_CUDA(cudaGetLastError());
}

void round_to_bf16(const float* in, __nv_bfloat16* out, size_t n, cudaStream_t s) {
  round_kernel<<<132 * 8, 256, 0, s>>>(in, out, n);
  PTXBENCH_CUDA(cudaGetLastError());
}

}  // namespace ptxbench::attention

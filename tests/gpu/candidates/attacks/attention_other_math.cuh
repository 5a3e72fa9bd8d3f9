// Shared by the attention attacks of issue 45: ONE forward-attention kernel (mha_fwd: no mask),
// the same name in every call. Q, K and V come by TMA (every box 64 rows x 64 columns of bf16, 128B
// swizzle); a CTA is one warpgroup of 128 threads over 64 query rows, walking 64-key blocks one at
// a time. For every block it ALWAYS runs the warpgroup-MMA FlashAttention step (S = Q K^T as
// wgmma m64n64k16 SS, P from the S accumulators, O += P V as wgmma RS with V MN-major; in the cheap
// mode one m64n64 wgmma per 64-column chunk of V into a thrown-away accumulator: the same FLOPs),
// and the mode decides whose results make the output:
//   mode 0 (honest):  the wgmmas' S and O are the output.
//   mode 1 (cheap):   legacy mma.sync m16n8k16 (SASS HMMA) computes S = Q K^T and O += P V from the
//                     same TMA-loaded tiles (P in registers, the mma.sync A layout is the wgmma RS
//                     layout); the wgmmas run on the same tiles for all of the problem's FLOPs and
//                     their S and O are thrown away.
// The mode comes from the host (`mode`) or, when `mode_dev` is set, from device memory at run time.
// Softmax in fp32 with ex2.approx (MUFU), as problems/mha_fwd/reference/wgmma_tma.cu.
#pragma once
#include <cuda.h>

#include "attention_tiles.cuh"
#include "ptx.cuh"

namespace attn_other {

using namespace hopper;

constexpr int BQ = 64, BKV = 64, kThreads = 128;

template <int D>
struct Cfg {
  static constexpr int kChunks = D / 64;
  static constexpr uint32_t kTile = 64 * D * 2;  // Q, K or V block: kChunks boxes of [64 rows][128 B]
  static constexpr uint32_t kOffK = kTile, kOffV = 2 * kTile;
  static constexpr size_t kSmemBytes = 3 * size_t(kTile) + 1024;
};

// The key-block loop and the epilogue, for one mode: kCheap = mma.sync makes S and O (the wgmmas'
// results thrown away), else the wgmmas' results are the output. Q is in shared memory at `base`.
template <int D, bool kCheap>
__device__ __forceinline__ void run_blocks(const CUtensorMap* tmK, const CUtensorMap* tmV, uint32_t base,
                                           const uint8_t* base_ptr, uint64_t* kv_full, __nv_bfloat16* __restrict__ O,
                                           float* __restrict__ LSE, float scale, float sl2, int q_row0, int kv_row0,
                                           int nb) {
  using C = Cfg<D>;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, g = lane >> 2, tq = lane & 3;

  const uint8_t* q_ptr = base_ptr;
  const uint8_t* k_ptr = base_ptr + C::kOffK;
  const uint8_t* v_ptr = base_ptr + C::kOffV;
  const int r = 16 * warp + g;  // this thread's first row of the block (the other is r + 8)

  // o_w: the wgmmas' O (honest), or, cheap, a thrown-away m64n64 accumulator the P V wgmmas run into
  // one 64-column chunk of V at a time (the same FLOPs, fewer registers beside o_h).
  constexpr int kOw = kCheap ? 32 : D / 2;
  float o_w[kOw], o_h[kCheap ? D / 8 : 1][4];
#pragma unroll
  for (int i = 0; i < kOw; ++i) o_w[i] = 0.f;
#pragma unroll
  for (int j = 0; j < (kCheap ? D / 8 : 1); ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) o_h[j][e] = 0.f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};

  for (int n = 0; n < nb; ++n) {
    mbar_wait(smem_u32(kv_full), uint32_t(n & 1));
    // S = Q K^T by the warpgroup MMAs (always).
    float s[32];
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      wgmma_bf16_ss<64>(
          s, make_tile_desc(base + tile_k_offset(Swizzle::B128, true, 64, 16 * kk, 2), Swizzle::B128, true, 64),
          make_tile_desc(base + C::kOffK + tile_k_offset(Swizzle::B128, true, 64, 16 * kk, 2), Swizzle::B128, true, 64),
          kk > 0);
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_fence_operand(s);
    if constexpr (kCheap) {  // S = Q K^T by mma.sync; the wgmmas' S is thrown away
      float sh[8][4];
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) sh[j][e] = 0.f;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const int d = 16 * kk + 2 * tq;
        const uint32_t a[4] = {ld32(q_ptr, r, d), ld32(q_ptr, r + 8, d), ld32(q_ptr, r, d + 8), ld32(q_ptr, r + 8, d + 8)};
#pragma unroll
        for (int j = 0; j < 8; ++j) hmma(sh[j], a, ld32(k_ptr, 8 * j + g, d), ld32(k_ptr, 8 * j + g, d + 8));
      }
      float waste = 0.f;
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        waste += s[i];
        s[i] = sh[i >> 2][i & 3];
      }
      if (waste == 1234567.0f) LSE[q_row0] = waste;  // practically never: keeps the wasted S alive
    }
    // Online softmax (rows r and r + 8: elements with (i>>1)&1 == 0 and 1; a row's 4 lanes: xor 1, 2).
    float mx[2] = {m[0], m[1]}, c[2];
#pragma unroll
    for (int i = 0; i < 32; ++i) mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], s[i]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
      c[h] = ex2((m[h] - mx[h]) * sl2);  // first block: ex2(-inf) = 0
      m[h] = mx[h];
    }
    float sum[2] = {0.f, 0.f};
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      const int h = (i >> 1) & 1;
      s[i] = ex2(fmaf(s[i], sl2, -mx[h] * sl2));
      sum[h] += s[i];
    }
    l[0] = l[0] * c[0] + sum[0];
    l[1] = l[1] * c[1] + sum[1];
    if constexpr (!kCheap) {
#pragma unroll
      for (int i = 0; i < D / 2; ++i) o_w[i] *= c[(i >> 1) & 1];
    } else {
#pragma unroll
      for (int j = 0; j < D / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) o_h[j][e] *= c[e >> 1];
    }
    uint32_t p[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j) acc_to_afrag_bf16(s, j, p[j]);
    // O += P V by the warpgroup MMAs (always).
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const uint32_t v_k = base + C::kOffV + tile_k_offset(Swizzle::B128, false, 64, 16 * j, 2);
      if constexpr (!kCheap) {
        wgmma_bf16_rs<D, 1, 1, 1>(o_w, p[j], make_tile_desc(v_k, Swizzle::B128, false, 64), true);
      } else {
#pragma unroll
        for (int ch = 0; ch < C::kChunks; ++ch)
          wgmma_bf16_rs<64, 1, 1, 1>(o_w, p[j], make_tile_desc(v_k + ch * 8192, Swizzle::B128, false, 64), true);
      }
    }
    wgmma_commit();
    if constexpr (kCheap) {  // O += P V by mma.sync (B: V[key][d] pairs of consecutive keys, column d)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int key = 16 * j + 2 * tq;
#pragma unroll
        for (int nt = 0; nt < D / 8; ++nt) {
          const int d = 8 * nt + g;
          const uint32_t b0 = ld16(v_ptr, key, d) | (ld16(v_ptr, key + 1, d) << 16);
          const uint32_t b1 = ld16(v_ptr, key + 8, d) | (ld16(v_ptr, key + 9, d) << 16);
          hmma(o_h[nt], p[j], b0, b1);
        }
      }
    }
    wgmma_wait<0>();
    wgmma_fence_operand(o_w);
#pragma unroll
    for (int j = 0; j < 4; ++j) wgmma_fence_operand(p[j]);
    fence_proxy_async_shared();  // this thread's generic reads of K and V before the TMA refills them
    __syncthreads();             // every warp is done with this K/V block
    if (t == 0 && n + 1 < nb) {
      mbar_arrive_expect_tx(smem_u32(kv_full), 2 * C::kTile);
      for (int ch = 0; ch < C::kChunks; ++ch) {
        tma_load_2d(base + C::kOffK + ch * 8192, tmK, smem_u32(kv_full), ch * 64, kv_row0 + (n + 1) * BKV);
        tma_load_2d(base + C::kOffV + ch * 8192, tmV, smem_u32(kv_full), ch * 64, kv_row0 + (n + 1) * BKV);
      }
    }
  }

  // Epilogue: O / l -> bf16, plain stores; LSE = m * scale + ln(l) from lane % 4 == 0.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
  const float inv[2] = {1.f / l[0], 1.f / l[1]};
  float waste = 0.f;
#pragma unroll
  for (int nt = 0; nt < D / 8; ++nt) {
    const int col = 8 * nt + 2 * tq;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float v0, v1;
      if constexpr (kCheap) {
        waste += o_w[(4 * nt + 2 * h) % kOw];
        v0 = o_h[nt][2 * h], v1 = o_h[nt][2 * h + 1];
      } else {
        v0 = o_w[4 * nt + 2 * h], v1 = o_w[4 * nt + 2 * h + 1];
      }
      *reinterpret_cast<__nv_bfloat162*>(O + size_t(q_row0 + r + 8 * h) * D + col) =
          __floats2bfloat162_rn(v0 * inv[h], v1 * inv[h]);
    }
  }
  if (lane % 4 == 0) {
    LSE[q_row0 + r] = m[0] * scale + logf(l[0]);
    LSE[q_row0 + r + 8] = m[1] * scale + logf(l[1]) + (waste == 1234567.0f ? 1.f : 0.f);
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    attention_fwd_other_math(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
                             const __grid_constant__ CUtensorMap tmV, __nv_bfloat16* __restrict__ O,
                             float* __restrict__ LSE, int S, float scale, float sl2, int mode_host,
                             const int* mode_dev) {
  using C = Cfg<D>;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t q_full, kv_full;
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint8_t* const base_ptr = smem_raw + (base - smem_u32(smem_raw));
  const int bh = blockIdx.y, q_row0 = bh * S + blockIdx.x * BQ, kv_row0 = bh * S, nb = S / BKV;
  const int t = threadIdx.x;
  const int mode = mode_dev ? *reinterpret_cast<const volatile int*>(mode_dev) : mode_host;

  if (t == 0) {
    mbar_init(smem_u32(&q_full), 1);
    mbar_init(smem_u32(&kv_full), 1);
    fence_mbarrier_init();
    mbar_arrive_expect_tx(smem_u32(&q_full), C::kTile);
    for (int ch = 0; ch < C::kChunks; ++ch) tma_load_2d(base + ch * 8192, &tmQ, smem_u32(&q_full), ch * 64, q_row0);
    mbar_arrive_expect_tx(smem_u32(&kv_full), 2 * C::kTile);
    for (int ch = 0; ch < C::kChunks; ++ch) {
      tma_load_2d(base + C::kOffK + ch * 8192, &tmK, smem_u32(&kv_full), ch * 64, kv_row0);
      tma_load_2d(base + C::kOffV + ch * 8192, &tmV, smem_u32(&kv_full), ch * 64, kv_row0);
    }
  }
  __syncthreads();
  mbar_wait(smem_u32(&q_full), 0);
  if (mode)
    run_blocks<D, true>(&tmK, &tmV, base, base_ptr, &kv_full, O, LSE, scale, sl2, q_row0, kv_row0, nb);
  else
    run_blocks<D, false>(&tmK, &tmV, base, base_ptr, &kv_full, O, LSE, scale, sl2, q_row0, kv_row0, nb);
}

template <int D>
cudaError_t launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O, float* LSE,
                   int B, int H, int S, cudaStream_t stream, int mode, const int* mode_dev) {
  const uint64_t rows = uint64_t(B) * H * S;
  alignas(64) CUtensorMap tmQ, tmK, tmV;
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const auto swz = CU_TENSOR_MAP_SWIZZLE_128B;
  if (make_tensor_map_2d(&tmQ, bf16, Q, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmK, bf16, K, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmV, bf16, V, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  auto kernel = attention_fwd_other_math<D>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg<D>::kSmemBytes));
  if (err != cudaSuccess) return err;
  const float scale = 1.0f / sqrtf(float(D));
  kernel<<<dim3(S / BQ, B * H), kThreads, Cfg<D>::kSmemBytes, stream>>>(tmQ, tmK, tmV, O, LSE, S, scale,
                                                                          scale * 1.4426950408889634f, mode, mode_dev);
  return cudaGetLastError();
}

inline cudaError_t mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                           float* LSE, int B, int H, int S, int D, cudaStream_t stream, int mode,
                           const int* mode_dev = nullptr) {
  if (B <= 0 || H <= 0 || S <= 0 || S % BQ || uint64_t(B) * H > 65535u || uint64_t(B) * H * S >= (1ull << 31))
    return cudaErrorInvalidValue;
  if (D == 64) return launch<64>(Q, K, V, O, LSE, B, H, S, stream, mode, mode_dev);
  if (D == 128) return launch<128>(Q, K, V, O, LSE, B, H, S, stream, mode, mode_dev);
  return cudaErrorInvalidValue;
}

}  // namespace attn_other

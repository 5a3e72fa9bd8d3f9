// ATTACK (issue 45, class 1a in the attention backward): problems/mha_bwd/reference/wgmma_tma.cu runs
// whole (its warpgroup MMAs do all five products, about 1.0 of the FLOPs, from TMA-loaded tiles),
// then a second kernel recomputes dQ with legacy warp MMAs (mma.sync m16n8k16 bf16, SASS HMMA) from
// TMA-loaded Q, dO, K and V tiles (S = Q K^T, dP = dO V^T, dS = P (dP - Delta), dQ = scale dS K: 0.6
// of the problem's FLOPs) and overwrites the reference's dQ: that part of the warpgroup MMAs' work is
// thrown away and the output's dQ is the other math's. Delta is read from the reference's workspace
// (its delta_kernel wrote it). Must be judged correct with target_seen true and target_executed
// false (math off the target family: 0.6 of the FLOPs).
#define ptxbench_mha_bwd honest_mha_bwd
#include "../../../../problems/mha_bwd/reference/wgmma_tma.cu"
#undef ptxbench_mha_bwd

#include "attention_tiles.cuh"

namespace bwd_dq {

using namespace hopper;
using attn_other::hmma;
using attn_other::ld16;
using attn_other::ld32;

constexpr int kRows = 64, kThreads = 128;

template <int D>
struct Tiles {
  static constexpr uint32_t kTile = 64 * D * 2;  // [D/64 chunk][64 rows][128 B], 128B swizzle
  static constexpr uint32_t kOffdO = kTile, kOffK = 2 * kTile, kOffV = 3 * kTile;
  static constexpr size_t kSmemBytes = 4 * size_t(kTile) + 1024;
};

// One CTA (one warpgroup) per 64 query rows of one head; 64-key blocks one at a time.
template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    dq_by_mma_sync(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmdO,
                   const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV,
                   const float* __restrict__ LSE, const float* __restrict__ Delta, __nv_bfloat16* __restrict__ dQ, int S,
                   float scale, float sl2) {
  using T = Tiles<D>;
  constexpr int kChunks = D / 64;
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t q_full, kv_full;
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint8_t* const bp = smem_raw + (base - smem_u32(smem_raw));
  const int bh = blockIdx.y, q_row0 = bh * S + blockIdx.x * kRows, kv_row0 = bh * S, nb = S / 64;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, g = lane >> 2, tq = lane & 3, r = 16 * warp + g;

  if (t == 0) {
    mbar_init(smem_u32(&q_full), 1);
    mbar_init(smem_u32(&kv_full), 1);
    fence_mbarrier_init();
    mbar_arrive_expect_tx(smem_u32(&q_full), 2 * T::kTile);
    for (int ch = 0; ch < kChunks; ++ch) {
      tma_load_2d(base + ch * 8192, &tmQ, smem_u32(&q_full), ch * 64, q_row0);
      tma_load_2d(base + T::kOffdO + ch * 8192, &tmdO, smem_u32(&q_full), ch * 64, q_row0);
    }
    mbar_arrive_expect_tx(smem_u32(&kv_full), 2 * T::kTile);
    for (int ch = 0; ch < kChunks; ++ch) {
      tma_load_2d(base + T::kOffK + ch * 8192, &tmK, smem_u32(&kv_full), ch * 64, kv_row0);
      tma_load_2d(base + T::kOffV + ch * 8192, &tmV, smem_u32(&kv_full), ch * 64, kv_row0);
    }
  }
  __syncthreads();
  mbar_wait(smem_u32(&q_full), 0);
  const uint8_t* q = bp;
  const uint8_t* dout = bp + T::kOffdO;
  const uint8_t* k = bp + T::kOffK;
  const uint8_t* v = bp + T::kOffV;
  constexpr float kLog2eF = 1.4426950408889634f;
  const float lse2[2] = {LSE[q_row0 + r] * kLog2eF, LSE[q_row0 + r + 8] * kLog2eF};
  const float delta[2] = {Delta[q_row0 + r], Delta[q_row0 + r + 8]};

  float dq[D / 8][4];
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) dq[j][e] = 0.f;

  for (int n = 0; n < nb; ++n) {
    mbar_wait(smem_u32(&kv_full), uint32_t(n & 1));
    float s[8][4], dp[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[j][e] = dp[j][e] = 0.f;
    // S = Q K^T and dP = dO V^T: rows r, r + 8 of the 64 queries, 64 keys in n8 blocks j.
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const int d = 16 * kk + 2 * tq;
      const uint32_t aq[4] = {ld32(q, r, d), ld32(q, r + 8, d), ld32(q, r, d + 8), ld32(q, r + 8, d + 8)};
      const uint32_t ao[4] = {ld32(dout, r, d), ld32(dout, r + 8, d), ld32(dout, r, d + 8), ld32(dout, r + 8, d + 8)};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        hmma(s[j], aq, ld32(k, 8 * j + g, d), ld32(k, 8 * j + g, d + 8));
        hmma(dp[j], ao, ld32(v, 8 * j + g, d), ld32(v, 8 * j + g, d + 8));
      }
    }
    // P = exp(scale S - LSE), dS = P (dP - Delta), in the layout of s (row r + 8 for e >= 2).
    float ds[32];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int h = e >> 1;
        const float p = attn_other::ex2(fmaf(s[j][e], sl2, -lse2[h]));
        ds[4 * j + e] = p * (dp[j][e] - delta[h]);
      }
    // dQ += dS K: A = dS (C layout -> A fragments per 16 keys), B = K[key][d] pairs of keys, column d.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t a[4];
      acc_to_afrag_bf16(ds, kk, a);
      const int key = 16 * kk + 2 * tq;
#pragma unroll
      for (int nt = 0; nt < D / 8; ++nt) {
        const int d = 8 * nt + g;
        const uint32_t b0 = ld16(k, key, d) | (ld16(k, key + 1, d) << 16);
        const uint32_t b1 = ld16(k, key + 8, d) | (ld16(k, key + 9, d) << 16);
        hmma(dq[nt], a, b0, b1);
      }
    }
    fence_proxy_async_shared();  // this thread's generic reads of K and V before the TMA refills them
    __syncthreads();
    if (t == 0 && n + 1 < nb) {
      mbar_arrive_expect_tx(smem_u32(&kv_full), 2 * T::kTile);
      for (int ch = 0; ch < kChunks; ++ch) {
        tma_load_2d(base + T::kOffK + ch * 8192, &tmK, smem_u32(&kv_full), ch * 64, kv_row0 + (n + 1) * 64);
        tma_load_2d(base + T::kOffV + ch * 8192, &tmV, smem_u32(&kv_full), ch * 64, kv_row0 + (n + 1) * 64);
      }
    }
  }
#pragma unroll
  for (int nt = 0; nt < D / 8; ++nt) {
    const int col = 8 * nt + 2 * tq;
    *reinterpret_cast<__nv_bfloat162*>(dQ + size_t(q_row0 + r) * D + col) =
        __floats2bfloat162_rn(dq[nt][0] * scale, dq[nt][1] * scale);
    *reinterpret_cast<__nv_bfloat162*>(dQ + size_t(q_row0 + r + 8) * D + col) =
        __floats2bfloat162_rn(dq[nt][2] * scale, dq[nt][3] * scale);
  }
}

template <int D>
cudaError_t launch_dq(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      const __nv_bfloat16* dO, const float* LSE, const float* Delta, __nv_bfloat16* dQ, int B, int H,
                      int S, cudaStream_t stream) {
  const uint64_t rows = uint64_t(B) * H * S;
  alignas(64) CUtensorMap tmQ, tmdO, tmK, tmV;
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const auto swz = CU_TENSOR_MAP_SWIZZLE_128B;
  if (make_tensor_map_2d(&tmQ, bf16, Q, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmdO, bf16, dO, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmK, bf16, K, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmV, bf16, V, rows, D, uint64_t(D) * 2, 64, 64, swz) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  auto kernel = dq_by_mma_sync<D>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Tiles<D>::kSmemBytes));
  if (err != cudaSuccess) return err;
  const float scale = 1.0f / sqrtf(float(D));
  kernel<<<dim3(S / kRows, B * H), kThreads, Tiles<D>::kSmemBytes, stream>>>(tmQ, tmdO, tmK, tmV, LSE, Delta, dQ, S,
                                                                             scale, scale * 1.4426950408889634f);
  return cudaGetLastError();
}

}  // namespace bwd_dq

extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                        __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S,
                                        int D, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  cudaError_t err = honest_mha_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, D, workspace, workspace_bytes, stream);
  if (err != cudaSuccess) return err;
  // The reference's workspace: its fp32 dQ accumulator [rows, D], then Delta [rows].
  const float* delta = static_cast<const float*>(workspace) + size_t(B) * H * S * D;
  if (D == 64) return bwd_dq::launch_dq<64>(Q, K, V, dO, LSE, delta, dQ, B, H, S, stream);
  if (D == 128) return bwd_dq::launch_dq<128>(Q, K, V, dO, LSE, delta, dQ, B, H, S, stream);
  return cudaErrorInvalidValue;
}

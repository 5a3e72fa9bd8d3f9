// Shared by the attacks of issue 45 on target credit (classes 1 and 3): ONE GEMM kernel, the same
// name in every call, whose operands come by TMA (a 4-stage mbarrier ring, like
// problems/gemm/reference/wgmma_tma.cu) and whose products are made, k-tile by k-tile, either by
// warpgroup MMAs whose results are used (the honest path) or by math off the target family
// (`Math`: mma.sync HMMA, sparse mma.sp, fp64 DMMA, int8 IMMA or packed-half HFMA2), beside which
// warpgroup MMAs run on the same shared-memory tiles and their results are thrown away.
//
//   Params::other_from    the first 64-wide k-tile whose product the other math makes (0: all of
//                         them; K/64: none, the honest wgmma + TMA GEMM).
//   Params::waste_eighths on those k-tiles, wasted wgmmas run on this many of every 8 k16 steps
//                         (8: as many warpgroup-MMA FLOPs as the problem has; 5: 62.5%; 0: none).
//   Params::mode_dev      when set, read at run time from device memory (written by a probe kernel
//                         before): nonzero = every k-tile by the other math with full waste, zero =
//                         the honest path (overrides the two above).
//
// CTA tile 128 x 64 (two consumer warpgroups of 64 rows, one producer thread); every TMA box is
// 64 rows x 64 k of bf16 (8 KiB, 128B swizzle), so a copy's smallest-box credit is its own size.
// Each Math writes its result in the wgmma m64nNk16 accumulator layout (identical, warp by warp, to
// the mma.sync m16n8 C layout): acc[4j + e] = row 16*warp + lane/4 + 8*(e>>1), column 8j + 2*(lane%4)
// + (e&1) of the warpgroup's 64 x 64 tile.
// Requirements: M a multiple of 128, N of 64, K of 64 (the problem guarantees more).
#pragma once
#include <cuda.h>
#include <cuda_fp16.h>

#include "ptx.cuh"

namespace othermath {

using namespace hopper;

constexpr int BM = 128, BN = 64, BK = 64, kStages = 4, kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kBox = 64 * 64 * 2;                  // one TMA box: 64 rows x 64 k bf16 = 8 KiB
constexpr uint32_t kStageBytes = 3 * kBox;              // A rows 0-63, A rows 64-127, B rows 0-63
constexpr uint32_t kRingBytes = kStages * kStageBytes;  // 96 KiB
constexpr uint32_t kScratchBytes = 16384 + 1024;        // per consumer warpgroup: converted planes + scales
constexpr size_t kSmemBytes = size_t(kRingBytes) + kConsumers * kScratchBytes + 1024;

// Byte offset of element (r, k) (k in [0, 64)) in a 128B-swizzled K-major box of 128-byte rows whose
// base is 1024-byte aligned: the 16-byte chunk k/8 of row r sits at chunk (k/8) ^ (r%8).
__device__ __forceinline__ uint32_t swz(int r, int k) {
  return uint32_t(r) * 128u + ((uint32_t((k >> 3) ^ r) & 7u) << 4) + uint32_t(k & 7) * 2u;
}
__device__ __forceinline__ uint32_t ld32(const uint8_t* box, int r, int k) {
  return *reinterpret_cast<const uint32_t*>(box + swz(r, k));
}
__device__ __forceinline__ float ldf(const uint8_t* box, int r, int k) {
  return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(box + swz(r, k)));
}

// ------------------------------------------------------------------ the other math, per k-tile
// tile(st, a, b, scratch, wg_bar, warp, lane): st += A[16 rows of this warp][64 k] * B[64 rows][64 k]^T,
// `a` = this warpgroup's 64-row A box, `b` = the B box; `scratch` = this warpgroup's scratch (16 KiB of
// planes, then scales); `wg_bar` a named barrier id of the warpgroup's 128 threads.

__device__ __forceinline__ void mma_bf16_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// (a) Legacy warp MMA: mma.sync m16n8k16 bf16 -> SASS HMMA.16816.F32.BF16.
struct Hmma {
  struct State {
    float c[8][4];
  };
  __device__ static void zero(State& s) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) s.c[j][e] = 0.f;
  }
  __device__ static void tile(State& s, const uint8_t* a, const uint8_t* b, uint8_t*, int, int warp, int lane) {
    const int g = lane >> 2, t = lane & 3, r = 16 * warp + g;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const int k = 16 * kk + 2 * t;
      const uint32_t af[4] = {ld32(a, r, k), ld32(a, r + 8, k), ld32(a, r, k + 8), ld32(a, r + 8, k + 8)};
#pragma unroll
      for (int j = 0; j < 8; ++j) mma_bf16_16816(s.c[j], af, ld32(b, 8 * j + g, k), ld32(b, 8 * j + g, k + 8));
    }
  }
  __device__ static void finish(const State& s, float (&acc)[32]) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[4 * j + e] += s.c[j][e];
  }
};

// (b) Sparse warp MMA: mma.sp m16n8k32 bf16 (2:4 structured sparsity) -> SASS HMMA.SP. A dense
// 16 x 32 block of A is split into two 2:4-sparse halves, the elements at positions {0,1} of every
// group of 4 (metadata 0b0100 per group) and those at {2,3} (0b1110); their two products sum to
// the dense product exactly. The compressed A fragment has the dense m16n8k16 layout: register i
// holds the two kept elements of the 4-group at k = 4*(lane%4) (+16 for i >= 2), row lane/4 (+8
// for odd i), i.e. the bf16 pair at k + 2*half. B (32 x 8): register i holds k = 8i + 2*(lane%4).
struct SparseHmma {
  using State = Hmma::State;
  __device__ static void zero(State& s) { Hmma::zero(s); }
  __device__ static void tile(State& s, const uint8_t* a, const uint8_t* b, uint8_t*, int, int warp, int lane) {
    const int g = lane >> 2, t = lane & 3, r = 16 * warp + g;
#pragma unroll
    for (int q = 0; q < 2; ++q) {  // 32-wide k blocks of the 64-wide tile
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int k = 32 * q + 4 * t + 2 * half;
        const uint32_t af[4] = {ld32(a, r, k), ld32(a, r + 8, k), ld32(a, r, k + 16), ld32(a, r + 8, k + 16)};
        const uint32_t meta = half ? 0xEEEEEEEEu : 0x44444444u;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int n = 8 * j + g, kb = 32 * q + 2 * t;
          asm volatile(
              "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
              "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
              : "+f"(s.c[j][0]), "+f"(s.c[j][1]), "+f"(s.c[j][2]), "+f"(s.c[j][3])
              : "r"(af[0]), "r"(af[1]), "r"(af[2]), "r"(af[3]), "r"(ld32(b, n, kb)), "r"(ld32(b, n, kb + 8)),
                "r"(ld32(b, n, kb + 16)), "r"(ld32(b, n, kb + 24)), "r"(meta));
        }
      }
    }
  }
  __device__ static void finish(const State& s, float (&acc)[32]) { Hmma::finish(s, acc); }
};

// (c) fp64 tensor MMA: mma.sync m8n8k4 f64 -> SASS DMMA.884. bf16 -> double is exact, each product
// is exact in double, the sums are more accurate than fp32's. A: row lane/4, k = lane%4; B: k =
// lane%4, column lane/4; D: row lane/4, columns 2*(lane%4) + {0,1}.
struct Dmma {
  struct State {
    double d[2][8][2];  // [m8 block][n8 block][2]
  };
  __device__ static void zero(State& s) {
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int j = 0; j < 8; ++j) s.d[m][j][0] = s.d[m][j][1] = 0.0;
  }
  __device__ static void tile(State& s, const uint8_t* a, const uint8_t* b, uint8_t*, int, int warp, int lane) {
    const int g = lane >> 2, t = lane & 3, r = 16 * warp + g;
#pragma unroll 4
    for (int k4 = 0; k4 < 16; ++k4) {
      const int k = 4 * k4 + t;
      const double a0 = ldf(a, r, k), a1 = ldf(a, r + 8, k);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const double bv = ldf(b, 8 * j + g, k);
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                     : "+d"(s.d[0][j][0]), "+d"(s.d[0][j][1])
                     : "d"(a0), "d"(bv));
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                     : "+d"(s.d[1][j][0]), "+d"(s.d[1][j][1])
                     : "d"(a1), "d"(bv));
      }
    }
  }
  __device__ static void finish(const State& s, float (&acc)[32]) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[4 * j + e] += float(s.d[e >> 1][j][e & 1]);
  }
};

// Row r (0..63) of a 64-row swizzled box, 8 elements at a time: fn(c, v) with v = elements 8c..8c+7.
template <class Fn>
__device__ __forceinline__ void for_each_chunk(const uint8_t* box, int r, Fn fn) {
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const uint4 w = *reinterpret_cast<const uint4*>(box + r * 128 + (((c ^ r) & 7) << 4));
    const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&w);
    float v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = __bfloat162float(e[i]);
    fn(c, v);
  }
}

__device__ __forceinline__ void mma_s8_16832(int (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// (d) int8 tensor MMA: mma.sync m16n8k32 s8 -> SASS IMMA.16832.S8.S8. Each row of the A tile and of
// the B tile (64 k) is scaled by a power of two 2^(14-e) (e: the exponent of the row's largest
// magnitude, so |x| 2^(14-e) < 2^14) and rounded to an integer q = 256*hi + lo with hi in
// [-64, 64] and lo in [-128, 127], both int8. q_a q_b = 65536 hi*hi + 256 (hi*lo + lo*hi) + lo*lo,
// four IMMAs summed exactly in int32 per tile, then scaled back in fp32. The rounding error is at
// most 2^-15 of the row's largest element (about 3e-5 relative; the tolerance is 1e-2 of rms).
// Planes in scratch: A hi [64][64] at 0, A lo at 4096, B hi at 8192, B lo at 12288; the scales
// 2^(e-14) of A's rows at 16384, of B's at 16640 (floats).
struct Imma {
  using State = Hmma::State;
  __device__ static void zero(State& s) { Hmma::zero(s); }
  __device__ static void tile(State& s, const uint8_t* a, const uint8_t* b, uint8_t* scratch, int wg_bar, int warp,
                              int lane) {
    const int t = 32 * warp + lane;
    named_barrier_sync(wg_bar, 128);  // every warp is done with the previous tile's planes
    {  // one row per thread: threads 0-63 this warpgroup's A rows, 64-127 the B rows
      const bool is_b = t >= 64;
      const int r = t & 63;
      const uint8_t* box = is_b ? b : a;
      float mx = 0.f;
      for_each_chunk(box, r, [&](int, const float (&v)[8]) {
#pragma unroll
        for (int i = 0; i < 8; ++i) mx = fmaxf(mx, fabsf(v[i]));
      });
      int e = 0;
      frexpf(mx, &e);  // mx < 2^e (e = 0 for mx = 0)
      e = max(e, -100);
      const float up = __int_as_float((127 + 14 - e) << 23), down = __int_as_float((127 + e - 14) << 23);
      uint32_t* hi = reinterpret_cast<uint32_t*>(scratch + (is_b ? 8192 : 0) + r * 64);
      uint32_t* lo = hi + 1024;  // 4096 bytes further
      for_each_chunk(box, r, [&](int c, const float (&v)[8]) {
#pragma unroll
        for (int w = 0; w < 2; ++w) {
          uint32_t h = 0, l = 0;
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int q = __float2int_rn(v[4 * w + i] * up);  // |q| <= 2^14
            const int ql = int(int8_t(q & 0xFF));             // low byte, signed
            const int qh = (q - ql) >> 8;                     // exact: q - ql is a multiple of 256
            h |= uint32_t(uint8_t(qh)) << (8 * i);
            l |= uint32_t(uint8_t(ql)) << (8 * i);
          }
          hi[2 * c + w] = h;
          lo[2 * c + w] = l;
        }
      });
      reinterpret_cast<float*>(scratch + 16384 + (is_b ? 256 : 0))[r] = down;
    }
    named_barrier_sync(wg_bar, 128);  // the planes are complete
    const int g = lane >> 2, tq = lane & 3, r = 16 * warp + g;
    const float* sa = reinterpret_cast<const float*>(scratch + 16384);
    const float* sb = reinterpret_cast<const float*>(scratch + 16640);
    const float sa0 = sa[r], sa1 = sa[r + 8];
    auto word = [&](int plane, int row, int k) { return *reinterpret_cast<const uint32_t*>(scratch + plane + row * 64 + k); };
#pragma unroll
    for (int jq = 0; jq < 4; ++jq) {  // two n8 blocks at a time (int32 accumulators: 3 x 2 x 4)
      int hh[2][4] = {}, mid[2][4] = {}, ll[2][4] = {};
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int k = 32 * q + 4 * tq;
        const uint32_t ah[4] = {word(0, r, k), word(0, r + 8, k), word(0, r, k + 16), word(0, r + 8, k + 16)};
        const uint32_t al[4] = {word(4096, r, k), word(4096, r + 8, k), word(4096, r, k + 16),
                                word(4096, r + 8, k + 16)};
#pragma unroll
        for (int jj = 0; jj < 2; ++jj) {
          const int n = 8 * (2 * jq + jj) + g;
          const uint32_t bh0 = word(8192, n, k), bh1 = word(8192, n, k + 16);
          const uint32_t bl0 = word(12288, n, k), bl1 = word(12288, n, k + 16);
          mma_s8_16832(hh[jj], ah, bh0, bh1);
          mma_s8_16832(mid[jj], ah, bl0, bl1);
          mma_s8_16832(mid[jj], al, bh0, bh1);
          mma_s8_16832(ll[jj], al, bl0, bl1);
        }
      }
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) {
        const int j = 2 * jq + jj;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float v = 65536.f * float(hh[jj][e]) + 256.f * float(mid[jj][e]) + float(ll[jj][e]);
          s.c[j][e] += v * ((e >> 1) ? sa1 : sa0) * sb[8 * j + 2 * tq + (e & 1)];
        }
      }
    }
  }
  __device__ static void finish(const State& s, float (&acc)[32]) { Hmma::finish(s, acc); }
};

// (e) Packed half FMA: __hfma2 -> SASS HFMA2 (ptxas may issue it as HFMA2.MMA, on the pipe shared
// with the tensor cores). The tile is converted to fp16 (exact for the inputs in [-1, 1] but for
// fp16 subnormals) into planes A [64][64] at 0, B [64][64] at 8192 of scratch; each lane keeps, for
// its 32 outputs, a half2 of the even-k and odd-k partial sums over 8 k, then adds them in fp32.
struct Hfma2 {
  using State = Hmma::State;
  __device__ static void zero(State& s) { Hmma::zero(s); }
  __device__ static void tile(State& s, const uint8_t* a, const uint8_t* b, uint8_t* scratch, int wg_bar, int warp,
                              int lane) {
    const int t = 32 * warp + lane;
    named_barrier_sync(wg_bar, 128);
    {  // one row per thread: threads 0-63 this warpgroup's A rows, 64-127 the B rows
      const bool is_b = t >= 64;
      const int r = t & 63;
      __half2* row = reinterpret_cast<__half2*>(scratch + (is_b ? 8192 : 0) + r * 128);
      for_each_chunk(is_b ? b : a, r, [&](int c, const float (&v)[8]) {
#pragma unroll
        for (int i = 0; i < 4; ++i) row[4 * c + i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
      });
    }
    named_barrier_sync(wg_bar, 128);
    const int g = lane >> 2, tq = lane & 3, r = 16 * warp + g;
    const __half2* ap = reinterpret_cast<const __half2*>(scratch);
    const __half2* bp = reinterpret_cast<const __half2*>(scratch + 8192);
#pragma unroll 1
    for (int p0 = 0; p0 < 32; p0 += 4) {  // 4 k pairs = 8 k per half-precision partial sum
      __half2 part[8][4];
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[j][e] = __float2half2_rn(0.f);
#pragma unroll
      for (int p = p0; p < p0 + 4; ++p) {
        const __half2 a0 = ap[r * 32 + p], a1 = ap[(r + 8) * 32 + p];
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const __half2 bv = bp[(8 * j + 2 * tq + c) * 32 + p];
            part[j][c] = __hfma2(a0, bv, part[j][c]);
            part[j][2 + c] = __hfma2(a1, bv, part[j][2 + c]);
          }
      }
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float2 f = __half22float2(part[j][e]);
          s.c[j][e] += f.x + f.y;
        }
    }
  }
  __device__ static void finish(const State& s, float (&acc)[32]) { Hmma::finish(s, acc); }
};

// ------------------------------------------------------------------ the kernel

struct Params {
  int other_from;
  int waste_eighths;
  const int* mode_dev;
  float* sink;
};

template <class Math>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_other_math(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                    __nv_bfloat16* __restrict__ C, int M, int N, int K, Params p) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[kStages];
  __shared__ __align__(8) uint64_t empty_bar[kStages];
  const uint32_t ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
  uint8_t* const ring_ptr = smem_raw + (ring - smem_u32(smem_raw));
  const int nk = K / BK, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wg = warpgroup_idx();

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_u32(&full_bar[s]), 1);
      mbar_init(smem_u32(&empty_bar[s]), kConsumers * 128);
    }
    fence_mbarrier_init();
    fence_proxy_async_shared();
  }
  __syncthreads();

  if (wg == 0) {  // producer: one thread issues every TMA load
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < nk; ++kt) {
        const int s = kt % kStages, r = kt / kStages;
        if (r > 0) mbar_wait(smem_u32(&empty_bar[s]), uint32_t((r - 1) & 1));
        const uint32_t fb = smem_u32(&full_bar[s]), st = ring + uint32_t(s) * kStageBytes;
        mbar_arrive_expect_tx(fb, kStageBytes);
        tma_load_2d(st, &tmA, fb, kt * BK, m0);
        tma_load_2d(st + kBox, &tmA, fb, kt * BK, m0 + 64);
        tma_load_2d(st + 2 * kBox, &tmB, fb, kt * BK, n0);
      }
    }
    return;
  }

  const int cwg = wg - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  int other_from = p.other_from, waste8 = p.waste_eighths;
  if (p.mode_dev) {
    const int mode = *reinterpret_cast<const volatile int*>(p.mode_dev);
    other_from = mode ? 0 : nk;
    waste8 = 8;
  }
  uint8_t* const scratch = ring_ptr + kRingBytes + cwg * kScratchBytes;

  float acc[32], waste[16];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i) waste[i] = 0.f;
  typename Math::State st;
  Math::zero(st);

  for (int kt = 0; kt < nk; ++kt) {
    const int s = kt % kStages, r = kt / kStages;
    mbar_wait(smem_u32(&full_bar[s]), uint32_t(r & 1));
    const uint32_t a_box = ring + uint32_t(s) * kStageBytes + uint32_t(cwg) * kBox;
    const uint32_t b_box = ring + uint32_t(s) * kStageBytes + 2 * kBox;
    if (kt < other_from) {  // honest: the warpgroup MMAs' results are the output
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        wgmma_bf16_ss<64>(acc, make_tile_desc(a_box + kk * 32, Swizzle::B128, true, 64),
                          make_tile_desc(b_box + kk * 32, Swizzle::B128, true, 64));
      wgmma_commit();
      wgmma_wait<0>();
    } else {  // the other math makes the output; wasted warpgroup MMAs on the same tiles beside it
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        if (((4 * kt + kk) & 7) < waste8) {
          const uint64_t da = make_tile_desc(a_box + kk * 32, Swizzle::B128, true, 64);
          wgmma_bf16_ss<32>(waste, da, make_tile_desc(b_box + kk * 32, Swizzle::B128, true, 64));
          wgmma_bf16_ss<32>(waste, da, make_tile_desc(b_box + 32 * 128 + kk * 32, Swizzle::B128, true, 64));
        }
      wgmma_commit();
      Math::tile(st, ring_ptr + (a_box - ring), ring_ptr + (b_box - ring), scratch, 1 + cwg, warp, lane);
      wgmma_wait<0>();
      wgmma_fence_operand(waste);
    }
    mbar_arrive(smem_u32(&empty_bar[s]));  // this thread is done reading stage s
  }
  Math::finish(st, acc);

  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i) sum += waste[i];
  if (sum == 1234567.0f) *p.sink = sum;  // practically never: keeps the wasted wgmmas' results alive

  const int g = lane >> 2, tq = lane & 3;
  const int row = m0 + 64 * cwg + 16 * warp + g;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = n0 + 8 * j + 2 * tq;
    *reinterpret_cast<__nv_bfloat162*>(C + size_t(row) * N + col) = __floats2bfloat162_rn(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162*>(C + size_t(row + 8) * N + col) =
        __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
  }
  (void)M;
}

inline float* sink() {
  static float* s = nullptr;
  if (!s && cudaMalloc(&s, sizeof(float)) != cudaSuccess) s = nullptr;
  return s;
}

// The GEMM on `stream`: k-tiles [0, other_from) by used warpgroup MMAs, the rest by Math beside
// wasted ones on waste_eighths/8 of their k16 steps; with mode_dev, the device decides (see top).
template <class Math>
cudaError_t gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K,
                 cudaStream_t stream, int other_from, int waste_eighths, const int* mode_dev = nullptr) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % BN || K % BK) return cudaErrorInvalidValue;
  alignas(64) CUtensorMap tmA, tmB;
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (make_tensor_map_2d(&tmA, bf16, A, M, K, size_t(K) * 2, 64, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS ||
      make_tensor_map_2d(&tmB, bf16, B, N, K, size_t(K) * 2, 64, BK, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  float* s = sink();
  if (!s) return cudaErrorMemoryAllocation;
  cudaError_t err =
      cudaFuncSetAttribute(gemm_other_math<Math>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes));
  if (err != cudaSuccess) return err;
  const Params p{other_from, waste_eighths, mode_dev, s};
  gemm_other_math<Math><<<dim3(N / BN, M / BM), kThreads, kSmemBytes, stream>>>(tmA, tmB, C, M, N, K, p);
  return cudaGetLastError();
}

}  // namespace othermath

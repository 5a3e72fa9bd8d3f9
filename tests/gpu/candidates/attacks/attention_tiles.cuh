// Shared by the attention attacks of issue 45 (attention_other_math.cuh, attention_bwd_hmma_dq_over_wgmma.cu):
// fragment loads from the 128B-swizzled [D/64 chunk][64 rows][128 B] tiles the TMA writes, the legacy
// warp MMA (mma.sync m16n8k16 bf16, SASS HMMA) and MUFU.EX2.
#pragma once
#include <cuda_bf16.h>
#include <stdint.h>

namespace attn_other {

// Element (r, d) of a [D/64 chunk][64 rows][128 B] 128B-swizzled tile.
__device__ __forceinline__ uint32_t tile_off(int r, int d) {
  return uint32_t(d >> 6) * 8192u + uint32_t(r) * 128u + ((uint32_t(((d & 63) >> 3) ^ r) & 7u) << 4) +
         uint32_t(d & 7) * 2u;
}
__device__ __forceinline__ uint32_t ld32(const uint8_t* tile, int r, int d) {
  return *reinterpret_cast<const uint32_t*>(tile + tile_off(r, d));
}
__device__ __forceinline__ uint32_t ld16(const uint8_t* tile, int r, int d) {
  return *reinterpret_cast<const uint16_t*>(tile + tile_off(r, d));
}

__device__ __forceinline__ void hmma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace attn_other

// PTXBench knowledge pack, Blackwell B200 (sm_100a): PTX helper functions.
// Status: compiled for sm_100a and inspected with cuobjdump; NOT run (no B200 was available).
// Build with -gencode=arch=compute_100a,code=sm_100a (tcgen05 needs the arch-specific target).
// Conventions: a "smem address" is a 32-bit shared::cta address (smem_u32(ptr)); a "taddr" is a
// tensor-memory address (bits 31..16 = lane, bits 15..0 = column); TMA coordinates are in
// elements, innermost dimension first. Every async operation must be waited for as noted.
#pragma once
#include <cuda.h>  // CUtensorMap and cuTensorMapEncodeTiled (host side; link with -lcuda)
#include <cuda_runtime.h>
#include <stdint.h>

#if defined(__CUDA_ARCH__) && !(defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL) || \
                                (defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ == 1000))
#error "knowledge/blackwell/ptx.cuh: compile with -gencode=arch=compute_100a,code=sm_100a (tcgen05 is arch-specific)"
#endif

// ---- register-list macros used by the tcgen05.ld/st wrappers (N = 1, 2, 4, ..., 128) ----------
// PTXB_R<N>: the asm text "%0, %1, ..., %(N-1)"; PTXB_N<N>: "%N"; PTXB_NP<N>: "%(N+1)".
#define PTXB_R1 "%0"
#define PTXB_R2 PTXB_R1 ", %1"
#define PTXB_R4 PTXB_R2 ", %2, %3"
#define PTXB_R8 PTXB_R4 ", %4, %5, %6, %7"
#define PTXB_R16 PTXB_R8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define PTXB_R32 PTXB_R16 ", %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PTXB_R64 PTXB_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PTXB_R128 PTXB_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, "  \
  "%101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "      \
  "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define PTXB_N1 "%1"
#define PTXB_N2 "%2"
#define PTXB_N4 "%4"
#define PTXB_N8 "%8"
#define PTXB_N16 "%16"
#define PTXB_N32 "%32"
#define PTXB_N64 "%64"
#define PTXB_N128 "%128"
#define PTXB_NP1 "%2"
#define PTXB_NP2 "%3"
#define PTXB_NP4 "%5"
#define PTXB_NP8 "%9"
#define PTXB_NP16 "%17"
#define PTXB_NP32 "%33"
#define PTXB_NP64 "%65"
#define PTXB_NP128 "%129"
// Operand lists for r[i .. i+N-1]: outputs ("=r"), inputs ("r"), read-write ties ("+r").
#define PTXB_OUT1(r, i) "=r"(r[(i)])
#define PTXB_OUT2(r, i) PTXB_OUT1(r, i), PTXB_OUT1(r, (i) + 1)
#define PTXB_OUT4(r, i) PTXB_OUT2(r, i), PTXB_OUT2(r, (i) + 2)
#define PTXB_OUT8(r, i) PTXB_OUT4(r, i), PTXB_OUT4(r, (i) + 4)
#define PTXB_OUT16(r, i) PTXB_OUT8(r, i), PTXB_OUT8(r, (i) + 8)
#define PTXB_OUT32(r, i) PTXB_OUT16(r, i), PTXB_OUT16(r, (i) + 16)
#define PTXB_OUT64(r, i) PTXB_OUT32(r, i), PTXB_OUT32(r, (i) + 32)
#define PTXB_OUT128(r, i) PTXB_OUT64(r, i), PTXB_OUT64(r, (i) + 64)
#define PTXB_IN1(r, i) "r"(r[(i)])
#define PTXB_IN2(r, i) PTXB_IN1(r, i), PTXB_IN1(r, (i) + 1)
#define PTXB_IN4(r, i) PTXB_IN2(r, i), PTXB_IN2(r, (i) + 2)
#define PTXB_IN8(r, i) PTXB_IN4(r, i), PTXB_IN4(r, (i) + 4)
#define PTXB_IN16(r, i) PTXB_IN8(r, i), PTXB_IN8(r, (i) + 8)
#define PTXB_IN32(r, i) PTXB_IN16(r, i), PTXB_IN16(r, (i) + 16)
#define PTXB_IN64(r, i) PTXB_IN32(r, i), PTXB_IN32(r, (i) + 32)
#define PTXB_IN128(r, i) PTXB_IN64(r, i), PTXB_IN64(r, (i) + 64)
#define PTXB_IO1(r, i) "+r"(r[(i)])
#define PTXB_IO2(r, i) PTXB_IO1(r, i), PTXB_IO1(r, (i) + 1)
#define PTXB_IO4(r, i) PTXB_IO2(r, i), PTXB_IO2(r, (i) + 2)
#define PTXB_IO8(r, i) PTXB_IO4(r, i), PTXB_IO4(r, (i) + 4)
#define PTXB_IO16(r, i) PTXB_IO8(r, i), PTXB_IO8(r, (i) + 8)
#define PTXB_IO32(r, i) PTXB_IO16(r, i), PTXB_IO16(r, (i) + 16)
#define PTXB_IO64(r, i) PTXB_IO32(r, i), PTXB_IO32(r, (i) + 32)
#define PTXB_IO128(r, i) PTXB_IO64(r, i), PTXB_IO64(r, (i) + 64)

// One tcgen05.ld / tcgen05.st; OPC = "<shape>.x<rep>[.pack::16b]", NR = registers per thread.
#define PTXB_TMEM_LD(OPC, NR)                                                                      \
  asm volatile("tcgen05.ld.sync.aligned." OPC ".b32 {" PTXB_R##NR "}, [" PTXB_N##NR "];"            \
               : PTXB_OUT##NR(r, 0) : "r"(taddr) : "memory")
#define PTXB_TMEM_ST(OPC, NR)                                                                      \
  asm volatile("tcgen05.st.sync.aligned." OPC ".b32 [" PTXB_N##NR "], {" PTXB_R##NR "};"            \
               :: PTXB_IN##NR(r, 0), "r"(taddr) : "memory")
// 16x32bx2 forms also take the immediate half-split offset HALF (in columns).
#define PTXB_TMEM_LD_HS(OPC, NR)                                                                   \
  asm volatile("tcgen05.ld.sync.aligned." OPC ".b32 {" PTXB_R##NR "}, [" PTXB_N##NR "], " PTXB_NP##NR ";" \
               : PTXB_OUT##NR(r, 0) : "r"(taddr), "n"(HALF) : "memory")
#define PTXB_TMEM_ST_HS(OPC, NR)                                                                   \
  asm volatile("tcgen05.st.sync.aligned." OPC ".b32 [" PTXB_N##NR "], " PTXB_NP##NR ", {" PTXB_R##NR "};" \
               :: PTXB_IN##NR(r, 0), "r"(taddr), "n"(HALF) : "memory")
// Selects .x<REP> at compile time; K1/K2/K4 = 1, 2 or 4 registers per repetition.
#define PTXB_REPS_K1(EMIT, SHAPE, Q)                                                               \
  if constexpr (REP == 1) EMIT(SHAPE ".x1" Q, 1);                                                  \
  else if constexpr (REP == 2) EMIT(SHAPE ".x2" Q, 2);                                             \
  else if constexpr (REP == 4) EMIT(SHAPE ".x4" Q, 4);                                             \
  else if constexpr (REP == 8) EMIT(SHAPE ".x8" Q, 8);                                             \
  else if constexpr (REP == 16) EMIT(SHAPE ".x16" Q, 16);                                          \
  else if constexpr (REP == 32) EMIT(SHAPE ".x32" Q, 32);                                          \
  else if constexpr (REP == 64) EMIT(SHAPE ".x64" Q, 64);                                          \
  else EMIT(SHAPE ".x128" Q, 128);
#define PTXB_REPS_K2(EMIT, SHAPE, Q)                                                               \
  if constexpr (REP == 1) EMIT(SHAPE ".x1" Q, 2);                                                  \
  else if constexpr (REP == 2) EMIT(SHAPE ".x2" Q, 4);                                             \
  else if constexpr (REP == 4) EMIT(SHAPE ".x4" Q, 8);                                             \
  else if constexpr (REP == 8) EMIT(SHAPE ".x8" Q, 16);                                            \
  else if constexpr (REP == 16) EMIT(SHAPE ".x16" Q, 32);                                          \
  else if constexpr (REP == 32) EMIT(SHAPE ".x32" Q, 64);                                          \
  else EMIT(SHAPE ".x64" Q, 128);
#define PTXB_REPS_K4(EMIT, SHAPE, Q)                                                               \
  if constexpr (REP == 1) EMIT(SHAPE ".x1" Q, 4);                                                  \
  else if constexpr (REP == 2) EMIT(SHAPE ".x2" Q, 8);                                             \
  else if constexpr (REP == 4) EMIT(SHAPE ".x4" Q, 16);                                            \
  else if constexpr (REP == 8) EMIT(SHAPE ".x8" Q, 32);                                            \
  else if constexpr (REP == 16) EMIT(SHAPE ".x16" Q, 64);                                          \
  else EMIT(SHAPE ".x32" Q, 128);

namespace blackwell {

// ================================================================ basics

// 32-bit shared::cta address of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Warp index within the CTA, made warp-uniform with a shuffle (call with the whole warp converged).
__device__ __forceinline__ uint32_t warp_idx() { return __shfl_sync(0xffffffffu, threadIdx.x / 32, 0); }

// Lane index 0..31.
__device__ __forceinline__ uint32_t lane_idx() { return threadIdx.x % 32; }

// elect.sync: true in exactly one active lane of the (fully converged) warp.
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t pred = 0;
  asm volatile(
      "{\n\t.reg .pred p;\n\t.reg .b32 r;\n\t"
      "elect.sync r|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(pred));
  return pred != 0;
}

// ================================================================ cluster

// This CTA's rank in its cluster (%cluster_ctarank); 0 without a cluster launch.
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Number of CTAs in the cluster (%cluster_nctarank).
__device__ __forceinline__ uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// Arrive on the cluster barrier with release semantics (all threads of the CTA must call it).
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }

// Relaxed arrive (no memory ordering), e.g. for a start-up handshake with no data.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// Wait on the cluster barrier with acquire semantics.
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// Full cluster-wide barrier (arrive + wait); every thread of every CTA in the cluster must call it.
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// mapa: shared::cluster address of the variable at smem address `addr` in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t mapa_shared(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}

// Rank of the even ("leader") CTA of this CTA's 2-CTA pair (cta_group::2 issues MMAs from it).
__device__ __forceinline__ uint32_t pair_leader_rank() { return cluster_ctarank() & ~1u; }

// ================================================================ mbarrier

// Initialise an mbarrier (8-byte aligned smem) with the expected arrival count; one thread.
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Release the mbarrier inits at cluster scope; then __syncthreads()/cluster_sync() before any use.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arrive once on a local mbarrier (release, CTA scope).
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrive once on an mbarrier in another CTA of the cluster (cluster_bar from mapa_shared).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}

// Arrive once and add `bytes` to the transaction count the current phase waits for (TMA producer).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Add `bytes` to the expected transaction count without arriving.
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// One probe: true once the phase with parity `parity` has completed (acquire, CTA scope).
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// Block until the phase with parity `parity` has completed (acquire, CTA scope).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// One probe with cluster-scope acquire (arrivals came from other CTAs: multicast commit, remote arrive).
__device__ __forceinline__ bool mbar_try_wait_cluster(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// Block until phase `parity` completed, acquire at cluster scope.
__device__ __forceinline__ void mbar_wait_cluster(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait_cluster(bar, parity)) {
  }
}

// Invalidate an mbarrier before its smem is reused for anything else (no pending arrivals allowed).
__device__ __forceinline__ void mbar_inval(uint32_t bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// ================================================================ proxy fences

// Order this thread's generic-proxy smem writes before later async-proxy reads (TMA store, MMA).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ================================================================ TMA (cp.async.bulk.tensor)
// Same names and argument order as the Hopper pack. Issue from ONE thread. Coordinates are in
// elements, innermost first; dst/src are smem addresses, bar an mbarrier smem address.

// Host: cuTensorMapEncodeTiled after the simple checks below (CUDA_ERROR_INVALID_VALUE instead of
// encoding a bad map). dims/box innermost first; strides = byte strides of dims 1..rank-1 (multiples
// of 16); box[i] in 1..256 and box[0]*elem_bytes <= swizzle span; gaddr 16 B, map 64 B aligned.
inline CUresult make_tensor_map(CUtensorMap* map, CUtensorMapDataType dtype, uint32_t rank, const void* gaddr,
                                const uint64_t* dims, const uint64_t* strides, const uint32_t* box,
                                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE,
                                CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CUtensorMapFloatOOBfill oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) {
  if (map == nullptr || gaddr == nullptr || rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  if (reinterpret_cast<uintptr_t>(map) % 64 != 0 || reinterpret_cast<uintptr_t>(gaddr) % 16 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || box[i] == 0 || box[i] > 256) return CUDA_ERROR_INVALID_VALUE;
    d[i] = dims[i];
    b[i] = box[i];
    e[i] = 1;
  }
  for (uint32_t i = 0; i + 1 < rank; ++i) {
    if (strides[i] % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
    s[i] = strides[i];
  }
  return cuTensorMapEncodeTiled(map, dtype, rank, const_cast<void*>(gaddr), d, s, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                swizzle, l2, oob);
}

// Host: 2D map over a row-major [rows][cols] matrix with row_pitch bytes between rows; a box is
// box_rows x box_cols elements (box_cols along the contiguous dimension).
inline CUresult make_tensor_map_2d(CUtensorMap* map, CUtensorMapDataType dtype, const void* gaddr, uint64_t rows,
                                   uint64_t cols, uint64_t row_pitch, uint32_t box_rows, uint32_t box_cols,
                                   CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  const uint64_t dims[2] = {cols, rows};
  const uint64_t strides[1] = {row_pitch};
  const uint32_t box[2] = {box_cols, box_rows};
  return make_tensor_map(map, dtype, 2, gaddr, dims, strides, box, swizzle);
}

// Prefetch a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

#define PTXB_MAP "l"(reinterpret_cast<uint64_t>(map))

// TMA load of one box into smem `dst`; completes as transaction bytes on mbarrier `bar` (same CTA).
__device__ __forceinline__ void tma_load_1d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(bar), "r"(c0) : "memory");
}
// 2D TMA load (c0 innermost).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(bar), "r"(c0), "r"(c1) : "memory");
}
// 3D TMA load.
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(bar), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
// 4D TMA load.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2,
                                            int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
// 5D TMA load.
__device__ __forceinline__ void tma_load_5d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2,
                                            int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// Multicast TMA load: the box lands at the same smem offset `dst` in every CTA whose bit is set in
// cta_mask (bit i = cluster rank i), and signals the mbarrier at offset `bar` in each of them.
__device__ __forceinline__ void tma_load_1d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                      uint16_t cta_mask, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(bar), "h"(cta_mask), "r"(c0) : "memory");
}
// 2D multicast TMA load.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                      uint16_t cta_mask, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1) : "memory");
}
// 3D multicast TMA load.
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                      uint16_t cta_mask, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5, %6}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
// 4D multicast TMA load.
__device__ __forceinline__ void tma_load_4d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                      uint16_t cta_mask, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5, %6, %7}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
// 5D multicast TMA load.
__device__ __forceinline__ void tma_load_5d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                      uint16_t cta_mask, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5, %6, %7, %8}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// 2-CTA (.cta_group::2) TMA load: data lands in THIS CTA's smem `dst`; the mbarrier may be the pair
// leader's: cluster_bar = mapa_shared(smem_u32(&full_bar), pair_leader_rank()) so the leader counts
// the bytes of both CTAs.
__device__ __forceinline__ void tma_load_2d_2sm(uint32_t dst, const CUtensorMap* map, uint32_t cluster_bar, int c0,
                                                int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%0], [%1, {%3, %4}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(cluster_bar), "r"(c0), "r"(c1) : "memory");
}
// 3D 2-CTA TMA load.
__device__ __forceinline__ void tma_load_3d_2sm(uint32_t dst, const CUtensorMap* map, uint32_t cluster_bar, int c0,
                                                int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%0], [%1, {%3, %4, %5}], [%2];"
               ::"r"(dst), PTXB_MAP, "r"(cluster_bar), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
// 2D 2-CTA multicast TMA load (lands in every CTA of cta_mask; signals the pair leaders' barriers).
__device__ __forceinline__ void tma_load_2d_2sm_multicast(uint32_t dst, const CUtensorMap* map, uint32_t cluster_bar,
                                                          uint16_t cta_mask, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [%0], [%1, {%4, %5}], [%2], %3;"
               ::"r"(dst), PTXB_MAP, "r"(cluster_bar), "h"(cta_mask), "r"(c0), "r"(c1) : "memory");
}

// TMA store of the smem box at `src` to global (bulk_group completion). Before it: every writing
// thread calls fence_proxy_async_shared(), then a barrier, then ONE thread stores; then
// bulk_commit_group() and bulk_wait_group_read<0>() (smem reusable) / bulk_wait_group<0>() (done).
__device__ __forceinline__ void tma_store_1d(const CUtensorMap* map, uint32_t src, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0) : "memory");
}
// 2D TMA store.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1) : "memory");
}
// 3D TMA store.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
// 4D TMA store.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
// 5D TMA store.
__device__ __forceinline__ void tma_store_5d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3,
                                             int c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// TMA reduce-add of the smem box into global (element-wise atomic add, type of the map); bulk_group.
__device__ __forceinline__ void tma_reduce_add_1d(const CUtensorMap* map, uint32_t src, int c0) {
  asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%0, {%2}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0) : "memory");
}
// 2D TMA reduce-add.
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1) : "memory");
}
// 3D TMA reduce-add.
__device__ __forceinline__ void tma_reduce_add_3d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2) {
  asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
// 4D TMA reduce-add.
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
// 5D TMA reduce-add.
__device__ __forceinline__ void tma_reduce_add_5d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3,
                                                  int c4) {
  asm volatile("cp.reduce.async.bulk.tensor.5d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
               ::PTXB_MAP, "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// Prefetch a 2D box into L2 (no smem, no completion signal).
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::PTXB_MAP, "r"(c0), "r"(c1) : "memory");
}

// Non-tensor bulk copy global -> smem of `bytes` (multiple of 16, both 16 B aligned); complete_tx on bar.
__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// Non-tensor bulk copy smem -> global (bulk_group completion, same size/alignment rules).
__device__ __forceinline__ void bulk_store(void* dst, uint32_t src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes) : "memory");
}

#undef PTXB_MAP

// Close the current bulk group of this thread's TMA/bulk stores and reductions.
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Wait until at most N of this thread's bulk groups still READ their smem source (smem reusable).
template <int N = 0>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// Wait until at most N of this thread's bulk groups are incomplete (global writes done).
template <int N = 0>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// ================================================================ tcgen05: tensor memory (TMEM)
// TMEM per SM: 128 lanes x 512 columns x 32 bit. taddr = (lane << 16) | column.

// TMEM address `lane` rows and `col` columns past `base`.
__device__ __forceinline__ uint32_t tmem_addr(uint32_t base, uint32_t lane, uint32_t col) {
  return base + (lane << 16) + col;
}

// Allocate ncols columns (power of 2, 32..512); one whole warp calls it; the TMEM base address is
// written to the 4-byte smem slot `slot`. CG=2: one warp (same warp id, same slot) in each CTA of the pair.
template <int CG>
__device__ __forceinline__ void tmem_alloc(uint32_t slot, uint32_t ncols) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot), "r"(ncols) : "memory");
}

// Free ncols columns at taddr (same warp as the alloc, before the CTA exits; all TMEM reads done).
template <int CG>
__device__ __forceinline__ void tmem_dealloc(uint32_t taddr, uint32_t ncols) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

// Give up the right to allocate again, so CTAs waiting on this SM's TMEM can proceed (allocating warp).
template <int CG>
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

// Order prior tcgen05 ops before the next thread sync (__syncthreads, mbarrier arrive, cluster barrier).
__device__ __forceinline__ void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}

// Order later tcgen05 ops after the preceding thread sync (barrier or mbarrier wait).
__device__ __forceinline__ void tcgen05_fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// ================================================================ tcgen05: descriptors

// Shared-memory matrix layouts (descriptor bits 61-63). K-major + SWIZZLE_128B pairs with TMA
// CU_TENSOR_MAP_SWIZZLE_128B and a 128-byte box row (64 bf16).
enum class Swizzle : uint32_t { None = 0, B128_Base32B = 1, B128 = 2, B64 = 4, B32 = 6 };

// tcgen05 shared-memory descriptor (64 bit):
//   bits  0-13 start address >> 4        bits 16-29 leading-dimension byte offset (LBO) >> 4
//   bits 32-45 stride-dimension byte offset (SBO) >> 4      bits 46-48 fixed 0b001 (sm_100 version)
//   bits 49-51 matrix base offset        bit  52 LBO mode (0 = relative)     bits 61-63 swizzle mode
__host__ __device__ constexpr uint64_t make_smem_desc(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                                      Swizzle swizzle, uint32_t base_offset = 0) {
  return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
         ((uint64_t)((sbo_bytes & 0x3FFFFu) >> 4) << 32) | ((uint64_t)1 << 46) |
         ((uint64_t)(base_offset & 7u) << 49) | ((uint64_t)swizzle << 61);
}

// K-major, 128B-swizzled operand (rows of 128 bytes, 8-row atoms of 1024 B, tile 1024-aligned):
// LBO unused for swizzled K-major (encoded as 16 B), SBO = 1024 B between 8-row groups.
// Step along K inside the 128-byte row by adding bytes to smem_addr (bf16: k * 2 bytes, k % 16 == 0).
__host__ __device__ constexpr uint64_t make_smem_desc_kmajor_sw128(uint32_t smem_addr) {
  return make_smem_desc(smem_addr, 16, 1024, Swizzle::B128);
}

// Advance a descriptor's start address by `bytes` (multiple of 16; stays inside the 256 KB window).
__host__ __device__ constexpr uint64_t smem_desc_advance(uint64_t desc, uint32_t bytes) { return desc + (bytes >> 4); }

// Operand element formats for the instruction descriptor (kind::f16: F16/BF16; kind::tf32: TF32).
enum class MmaFormat : uint32_t { F16 = 0, BF16 = 1, TF32 = 2 };
// Accumulator (D) format: F16 = 0, F32 = 1.
enum class AccFormat : uint32_t { F16 = 0, F32 = 1 };
// Operand major-ness: K (K contiguous, "not transposed") or MN.
enum class Major : uint32_t { K = 0, MN = 1 };

// Instruction descriptor (32 bit) for kind::f16 / kind::tf32, dense:
//   bits 0-1 sparsity selector (0)   bit 2 sparse (0)   bit 3 saturate (0)   bits 4-5 D format
//   bits 7-9 A format   bits 10-12 B format   bit 13 negate A   bit 14 negate B
//   bit 15 A major (0 = K)   bit 16 B major (0 = K)   bits 17-22 N >> 3   bits 24-28 M >> 4
//   bits 30-31 max shift (.ws only, 0). M is the whole instruction's M (256 for a 2-CTA M=256 MMA).
__host__ __device__ constexpr uint32_t make_idesc(int M, int N, MmaFormat a, MmaFormat b, AccFormat d,
                                                  Major a_major = Major::K, Major b_major = Major::K,
                                                  bool negate_a = false, bool negate_b = false) {
  return ((uint32_t)d << 4) | ((uint32_t)a << 7) | ((uint32_t)b << 10) | ((uint32_t)negate_a << 13) |
         ((uint32_t)negate_b << 14) | ((uint32_t)a_major << 15) | ((uint32_t)b_major << 16) |
         ((uint32_t)(N >> 3) << 17) | ((uint32_t)(M >> 4) << 24);
}

// The common case: bf16 x bf16 -> fp32, both operands K-major (C = A * B^T with row-major A[M,K], B[N,K]).
__host__ __device__ constexpr uint32_t make_idesc_bf16_f32(int M, int N) {
  return make_idesc(M, N, MmaFormat::BF16, MmaFormat::BF16, AccFormat::F32);
}

// Dense kind::f16 shape check: CG=1: M=64 (N%8==0) or M=128 (N%16==0); CG=2: M=128 (N%32==0) or
// M=256 (N%16==0); always 8 <= N <= 256; K = 16 per instruction.
__host__ __device__ constexpr bool valid_f16_shape(int cta_group, int M, int N) {
  if (N < 8 || N > 256) return false;
  if (cta_group == 1) return (M == 64 && N % 8 == 0) || (M == 128 && N % 16 == 0);
  return (M == 128 && N % 32 == 0) || (M == 256 && N % 16 == 0);
}

// ================================================================ tcgen05.mma

enum class MmaKind { F16, TF32, F8F6F4, I8 };

#define PTXB_MMA_PICK(EMIT)                                                                        \
  if constexpr (CG == 1 && KIND == MmaKind::F16) EMIT("1", "f16");                                 \
  else if constexpr (CG == 1 && KIND == MmaKind::TF32) EMIT("1", "tf32");                          \
  else if constexpr (CG == 1 && KIND == MmaKind::F8F6F4) EMIT("1", "f8f6f4");                      \
  else if constexpr (CG == 1) EMIT("1", "i8");                                                     \
  else if constexpr (KIND == MmaKind::F16) EMIT("2", "f16");                                       \
  else if constexpr (KIND == MmaKind::TF32) EMIT("2", "tf32");                                     \
  else if constexpr (KIND == MmaKind::F8F6F4) EMIT("2", "f8f6f4");                                 \
  else EMIT("2", "i8");

#define PTXB_MMA_SS(CGS, KS)                                                                       \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                                   \
               "tcgen05.mma.cta_group::" CGS ".kind::" KS " [%0], %1, %2, %3, p;\n\t}"              \
               ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"((uint32_t)accumulate) : "memory")
#define PTXB_MMA_TS(CGS, KS)                                                                       \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                                   \
               "tcgen05.mma.cta_group::" CGS ".kind::" KS " [%0], [%1], %2, %3, p;\n\t}"            \
               ::"r"(d_tmem), "r"(a_tmem), "l"(b_desc), "r"(idesc), "r"((uint32_t)accumulate) : "memory")
#define PTXB_MMA_SS_SCALED(CGS, KS)                                                                \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                                   \
               "tcgen05.mma.cta_group::" CGS ".kind::" KS " [%0], %1, %2, %3, p, %5;\n\t}"          \
               ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"((uint32_t)accumulate), "n"(SCALE_D) : "memory")
#define PTXB_MMA_SS_MASK1(CGS, KS)                                                                 \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                                   \
               "tcgen05.mma.cta_group::" CGS ".kind::" KS " [%0], %1, %2, %3, {%5, %6, %7, %8}, p;\n\t}" \
               ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"((uint32_t)accumulate),     \
               "r"(mask[0]), "r"(mask[1]), "r"(mask[2]), "r"(mask[3]) : "memory")
#define PTXB_MMA_SS_MASK2(CGS, KS)                                                                 \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"                                   \
               "tcgen05.mma.cta_group::" CGS ".kind::" KS                                          \
               " [%0], %1, %2, %3, {%5, %6, %7, %8, %9, %10, %11, %12}, p;\n\t}"                    \
               ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"((uint32_t)accumulate),     \
               "r"(mask[0]), "r"(mask[1]), "r"(mask[2]), "r"(mask[3]), "r"(mask[4]), "r"(mask[5]),  \
               "r"(mask[6]), "r"(mask[7]) : "memory")

// D[tmem] (+)= A[smem] * B[smem]; ONE thread issues it; async: completion only via umma_commit.
// accumulate=false overwrites D (first K step); CG=2: issued from the even CTA, D/A split across the pair.
template <int CG, MmaKind KIND = MmaKind::F16>
__device__ __forceinline__ void umma_ss(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                        bool accumulate) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  PTXB_MMA_PICK(PTXB_MMA_SS)
}

// D[tmem] (+)= A[tmem] * B[smem] (A K-major in TMEM, e.g. P in attention); one thread; async.
template <int CG, MmaKind KIND = MmaKind::F16>
__device__ __forceinline__ void umma_ts(uint32_t d_tmem, uint32_t a_tmem, uint64_t b_desc, uint32_t idesc,
                                        bool accumulate) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  PTXB_MMA_PICK(PTXB_MMA_TS)
}

// D = A*B + (accumulate ? D * 2^-SCALE_D : 0), SCALE_D in 0..15; kind::f16 / kind::tf32 only.
template <int CG, int SCALE_D, MmaKind KIND = MmaKind::F16>
__device__ __forceinline__ void umma_ss_scaled(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                               bool accumulate) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  static_assert(SCALE_D >= 0 && SCALE_D <= 15, "scale-input-d is 0..15");
  static_assert(KIND == MmaKind::F16 || KIND == MmaKind::TF32, "scale-input-d: kind::f16 / kind::tf32 only");
  PTXB_MMA_PICK(PTXB_MMA_SS_SCALED)
}

// As umma_ss, with disable-output-lane: bit i of mask (128 bits for CG=1, 256 for CG=2) set =
// D lane i is not written.
template <int CG, MmaKind KIND = MmaKind::F16>
__device__ __forceinline__ void umma_ss_masked(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                               bool accumulate, const uint32_t (&mask)[4 * CG]) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1) {
    PTXB_MMA_PICK(PTXB_MMA_SS_MASK1)
  } else {
    PTXB_MMA_PICK(PTXB_MMA_SS_MASK2)
  }
}

// mbarrier `bar` gets one arrive when ALL prior async tcgen05 ops (mma/cp/shift) of this thread are
// complete; issue from the MMA thread. Implies tcgen05.fence::before_thread_sync.
template <int CG>
__device__ __forceinline__ void umma_commit(uint32_t bar) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}

// As umma_commit, arriving on the mbarrier at smem offset `bar` in every CTA set in cta_mask
// (2-CTA MMA: mask 0b11 << leader_rank signals both CTAs of the pair).
template <int CG>
__device__ __forceinline__ void umma_commit_multicast(uint32_t bar, uint16_t cta_mask) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                 ::"r"(bar), "h"(cta_mask) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                 ::"r"(bar), "h"(cta_mask) : "memory");
}

// ================================================================ tcgen05.cp / shift (smem -> TMEM)

#define PTXB_CP(SHAPE)                                                                             \
  if constexpr (CG == 1)                                                                           \
    asm volatile("tcgen05.cp.cta_group::1." SHAPE " [%0], %1;" ::"r"(taddr), "l"(sdesc) : "memory"); \
  else                                                                                             \
    asm volatile("tcgen05.cp.cta_group::2." SHAPE " [%0], %1;" ::"r"(taddr), "l"(sdesc) : "memory");

// Copy 128 lanes x 256 bits from smem (described by sdesc) into TMEM at taddr; one thread; async
// (track with umma_commit). Used e.g. for block-scale factors.
template <int CG>
__device__ __forceinline__ void tmem_cp_128x256b(uint32_t taddr, uint64_t sdesc) { PTXB_CP("128x256b") }
// Copy 4 lanes x 256 bits (lanes 0, 32, 64, 96 relative to taddr).
template <int CG>
__device__ __forceinline__ void tmem_cp_4x256b(uint32_t taddr, uint64_t sdesc) { PTXB_CP("4x256b") }
// Copy 128 lanes x 128 bits.
template <int CG>
__device__ __forceinline__ void tmem_cp_128x128b(uint32_t taddr, uint64_t sdesc) { PTXB_CP("128x128b") }
// Copy 64 lanes x 128 bits, replicated to warp pairs (0,2) and (1,3).
template <int CG>
__device__ __forceinline__ void tmem_cp_64x128b_warpx2_02_13(uint32_t taddr, uint64_t sdesc) {
  PTXB_CP("64x128b.warpx2::02_13")
}
// Copy 64 lanes x 128 bits, replicated to warp pairs (0,1) and (2,3).
template <int CG>
__device__ __forceinline__ void tmem_cp_64x128b_warpx2_01_23(uint32_t taddr, uint64_t sdesc) {
  PTXB_CP("64x128b.warpx2::01_23")
}
// Copy 32 lanes x 128 bits, replicated to all four 32-lane quarters.
template <int CG>
__device__ __forceinline__ void tmem_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc) { PTXB_CP("32x128b.warpx4") }

// Shift the TMEM matrix at taddr down by one lane (row), all but the last row; one thread; async
// (track with umma_commit).
template <int CG>
__device__ __forceinline__ void tmem_shift_down(uint32_t taddr) {
  static_assert(CG == 1 || CG == 2, "cta_group is 1 or 2");
  if constexpr (CG == 1)
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(taddr) : "memory");
  else
    asm volatile("tcgen05.shift.cta_group::2.down [%0];" ::"r"(taddr) : "memory");
}

// ================================================================ tcgen05.ld / tcgen05.st
// Warp-collective (.sync.aligned: all 32 lanes, converged). Warp w may only touch TMEM lanes
// 32*(w%4) .. 32*(w%4)+31, so put that lane base into taddr. Loads are async: call tmem_wait_ld(r)
// before using r. Stores are async: tmem_wait_st() before an MMA/ld reads the stored cells.
// REP is the .xREP repetition (power of 2); the register array size is fixed by the shape.

__host__ __device__ constexpr bool ptxb_pow2_le(int v, int max) { return v >= 1 && v <= max && (v & (v - 1)) == 0; }

// 32x32b.xREP: thread t reads lane (taddr.lane + t), columns taddr.col .. +REP-1; r[j] = column j.
template <int REP, bool PACK16 = false>
__device__ __forceinline__ void tmem_ld_32x32b(uint32_t taddr, uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "32x32b: REP = 1..128, power of 2");
  if constexpr (PACK16) {
    PTXB_REPS_K1(PTXB_TMEM_LD, "32x32b", ".pack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_LD, "32x32b", "")
  }
}

// 16x64b.xREP: 16 lanes x 64 bits per repetition; REP registers per thread.
template <int REP, bool PACK16 = false>
__device__ __forceinline__ void tmem_ld_16x64b(uint32_t taddr, uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "16x64b: REP = 1..128, power of 2");
  if constexpr (PACK16) {
    PTXB_REPS_K1(PTXB_TMEM_LD, "16x64b", ".pack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_LD, "16x64b", "")
  }
}

// 16x128b.xREP: 16 lanes x 128 bits per repetition; 2*REP registers per thread.
template <int REP, bool PACK16 = false>
__device__ __forceinline__ void tmem_ld_16x128b(uint32_t taddr, uint32_t (&r)[2 * REP]) {
  static_assert(ptxb_pow2_le(REP, 64), "16x128b: REP = 1..64, power of 2");
  if constexpr (PACK16) {
    PTXB_REPS_K2(PTXB_TMEM_LD, "16x128b", ".pack::16b")
  } else {
    PTXB_REPS_K2(PTXB_TMEM_LD, "16x128b", "")
  }
}

// 16x256b.xREP: 16 lanes x 256 bits per repetition; 4*REP registers per thread. Lane l of the warp
// gets r[4i+0,1] = row l/4, cols 8i+2(l%4)+{0,1}; r[4i+2,3] = row l/4+8, same cols (mma.sync C layout).
template <int REP, bool PACK16 = false>
__device__ __forceinline__ void tmem_ld_16x256b(uint32_t taddr, uint32_t (&r)[4 * REP]) {
  static_assert(ptxb_pow2_le(REP, 32), "16x256b: REP = 1..32, power of 2");
  if constexpr (PACK16) {
    PTXB_REPS_K4(PTXB_TMEM_LD, "16x256b", ".pack::16b")
  } else {
    PTXB_REPS_K4(PTXB_TMEM_LD, "16x256b", "")
  }
}

// 16x32bx2.xREP: two 16-lane x 32-bit halves; HALF = immHalfSplitoff, the immediate column offset of
// the second half; REP registers.
template <int REP, int HALF, bool PACK16 = false>
__device__ __forceinline__ void tmem_ld_16x32bx2(uint32_t taddr, uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "16x32bx2: REP = 1..128, power of 2");
  if constexpr (PACK16) {
    PTXB_REPS_K1(PTXB_TMEM_LD_HS, "16x32bx2", ".pack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_LD_HS, "16x32bx2", "")
  }
}

// Store counterparts (registers -> TMEM); UNPACK16 splits each register into two 16-bit columns.
template <int REP, bool UNPACK16 = false>
__device__ __forceinline__ void tmem_st_32x32b(uint32_t taddr, const uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "32x32b: REP = 1..128, power of 2");
  if constexpr (UNPACK16) {
    PTXB_REPS_K1(PTXB_TMEM_ST, "32x32b", ".unpack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_ST, "32x32b", "")
  }
}

// 16x64b.xREP store; REP registers.
template <int REP, bool UNPACK16 = false>
__device__ __forceinline__ void tmem_st_16x64b(uint32_t taddr, const uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "16x64b: REP = 1..128, power of 2");
  if constexpr (UNPACK16) {
    PTXB_REPS_K1(PTXB_TMEM_ST, "16x64b", ".unpack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_ST, "16x64b", "")
  }
}

// 16x128b.xREP store; 2*REP registers.
template <int REP, bool UNPACK16 = false>
__device__ __forceinline__ void tmem_st_16x128b(uint32_t taddr, const uint32_t (&r)[2 * REP]) {
  static_assert(ptxb_pow2_le(REP, 64), "16x128b: REP = 1..64, power of 2");
  if constexpr (UNPACK16) {
    PTXB_REPS_K2(PTXB_TMEM_ST, "16x128b", ".unpack::16b")
  } else {
    PTXB_REPS_K2(PTXB_TMEM_ST, "16x128b", "")
  }
}

// 16x256b.xREP store; 4*REP registers.
template <int REP, bool UNPACK16 = false>
__device__ __forceinline__ void tmem_st_16x256b(uint32_t taddr, const uint32_t (&r)[4 * REP]) {
  static_assert(ptxb_pow2_le(REP, 32), "16x256b: REP = 1..32, power of 2");
  if constexpr (UNPACK16) {
    PTXB_REPS_K4(PTXB_TMEM_ST, "16x256b", ".unpack::16b")
  } else {
    PTXB_REPS_K4(PTXB_TMEM_ST, "16x256b", "")
  }
}

// 16x32bx2.xREP store with half-split offset HALF; REP registers.
template <int REP, int HALF, bool UNPACK16 = false>
__device__ __forceinline__ void tmem_st_16x32bx2(uint32_t taddr, const uint32_t (&r)[REP]) {
  static_assert(ptxb_pow2_le(REP, 128), "16x32bx2: REP = 1..128, power of 2");
  if constexpr (UNPACK16) {
    PTXB_REPS_K1(PTXB_TMEM_ST_HS, "16x32bx2", ".unpack::16b")
  } else {
    PTXB_REPS_K1(PTXB_TMEM_ST_HS, "16x32bx2", "")
  }
}

// Wait for all of this thread's prior tcgen05.ld (warp-collective).
__device__ __forceinline__ void tmem_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

// Wait for prior tcgen05.ld AND tie the destination registers to the wait, so the compiler cannot
// move a use of r above it (N = 1, 2, 4, ..., 128). Prefer this overload.
template <int N>
__device__ __forceinline__ void tmem_wait_ld(uint32_t (&r)[N]) {
  static_assert(ptxb_pow2_le(N, 128), "N = 1..128, power of 2");
#define PTXB_WAIT_LD(NR) asm volatile("tcgen05.wait::ld.sync.aligned;" : PTXB_IO##NR(r, 0) :: "memory")
  if constexpr (N == 1) PTXB_WAIT_LD(1);
  else if constexpr (N == 2) PTXB_WAIT_LD(2);
  else if constexpr (N == 4) PTXB_WAIT_LD(4);
  else if constexpr (N == 8) PTXB_WAIT_LD(8);
  else if constexpr (N == 16) PTXB_WAIT_LD(16);
  else if constexpr (N == 32) PTXB_WAIT_LD(32);
  else if constexpr (N == 64) PTXB_WAIT_LD(64);
  else PTXB_WAIT_LD(128);
#undef PTXB_WAIT_LD
}

// Wait for all of this thread's prior tcgen05.st (warp-collective).
__device__ __forceinline__ void tmem_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }

// ================================================================ small conversions

// Two fp32 -> one 32-bit word of two bf16 (lo in bits 0-15, i.e. first in memory).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

}  // namespace blackwell

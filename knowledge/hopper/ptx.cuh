// knowledge/hopper/ptx.cuh -- PTX helpers for Hopper (H100/H200, sm_90a): wgmma, TMA, mbarrier,
// cluster, fences, setmaxnreg, ldmatrix/stmatrix. Header-only, namespace `hopper`.
//
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a (the 'a' target is required for wgmma
// and setmaxnreg). cuTensorMapEncodeTiled is reached through the runtime (no -lcuda needed).
// Conventions:
//   * A shared-memory operand is a 32-bit shared-window address: smem_u32(ptr). mbarriers are
//     8-byte aligned uint64_t in shared memory, passed the same way.
//   * TMA coordinates are element indices, innermost dimension first (c0 = contiguous dimension);
//     they are signed and may fall outside the tensor (loads zero-fill, stores/reductions clip).
//   * A CUtensorMap passed to a device helper is the address of a `const __grid_constant__
//     CUtensorMap` kernel parameter (or of one in __constant__ / global memory).
//   * "Warpgroup" = 4 consecutive warps, 128 threads, first warp index a multiple of 4.
// The rules that make these instructions legal and fast are in contract.md.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "ptx.cuh: compile with -gencode=arch=compute_90a,code=sm_90a (wgmma/setmaxnreg need sm_90a)"
#endif

namespace hopper {

// ============================================================================ basics

// Generic pointer to shared memory -> 32-bit shared-window address (cvta.to.shared).
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Two floats -> packed bf16x2 (round to nearest even); `lo` lands in bits 0-15 (lower column).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// Two floats -> packed f16x2 (round to nearest even); `lo` lands in bits 0-15.
__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// Warpgroup index of this thread (threadIdx.x / 128), made warp-uniform with a shuffle so role
// branches on it are provably uniform (setmaxnreg and wgmma need warpgroup-uniform control flow).
// Call from converged code (all 32 lanes), e.g. at the top of the kernel.
__device__ __forceinline__ int warpgroup_idx() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
}

// elect.sync: true in exactly one lane of the (fully converged) warp, false elsewhere.
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t pred = 0;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "elect.sync _|P, %1;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(pred) : "r"(0xffffffffu));
  return pred != 0;
}

// bar.sync id, n: named barrier for n threads (multiple of 32); id 1..15 (0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// bar.arrive id, n: signal a named barrier without waiting (producer side of bar.sync).
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t nthreads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// ============================================================================ swizzle

// Shared-memory swizzle modes. The value is the swizzle span in bytes; None has 16-byte atoms.
enum class Swizzle : uint32_t { None = 0, B32 = 32, B64 = 64, B128 = 128 };

// Row width of one swizzle atom in bytes (8 rows per atom): 16 for None, else the span.
__host__ __device__ constexpr uint32_t swizzle_atom_bytes(Swizzle s) {
  return s == Swizzle::None ? 16u : static_cast<uint32_t>(s);
}

// Byte offset -> swizzled byte offset, as TMA writes and wgmma reads it. `off` is relative to a
// base aligned to 8 * span bytes (1024 for B128): bits [4, 4+b) ^= bits [7, 7+b), b = 1/2/3.
__host__ __device__ constexpr uint32_t swizzle_offset(Swizzle s, uint32_t off) {
  return s == Swizzle::B128 ? off ^ ((off >> 3) & 0x70u)
       : s == Swizzle::B64  ? off ^ ((off >> 3) & 0x30u)
       : s == Swizzle::B32  ? off ^ ((off >> 3) & 0x10u)
                            : off;
}

// ============================================================================ cluster

// %cluster_ctarank: rank of this CTA in its cluster (0 .. cluster_nctarank()-1).
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// %cluster_nctarank: number of CTAs in the cluster.
__device__ __forceinline__ uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// %cluster_ctaid: this CTA's 3D position inside its cluster.
__device__ __forceinline__ dim3 cluster_ctaid() {
  uint32_t x, y, z;
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(x));
  asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(z));
  return dim3(x, y, z);
}

// %cluster_nctaid: the cluster's dimensions in CTAs.
__device__ __forceinline__ dim3 cluster_dims() {
  uint32_t x, y, z;
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(x));
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(z));
  return dim3(x, y, z);
}

// barrier.cluster.arrive.release: this thread arrives; earlier writes are released cluster-wide.
// Every non-exited thread of every CTA in the cluster must arrive (warp-converged: .aligned).
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

// barrier.cluster.arrive.relaxed: arrive without release semantics (pure execution barrier).
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// barrier.cluster.wait.acquire: wait for the whole cluster to arrive; acquires their writes.
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Full cluster barrier (arrive.release + wait.acquire). Also the "all CTAs of the cluster have
// started" guarantee needed before touching a peer's shared memory or mbarrier.
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// mapa.shared::cluster: address of the same shared variable in CTA `cta_rank` of the cluster.
// The result is a shared::cluster address: use it only with *_cluster helpers / TMA operands.
__device__ __forceinline__ uint32_t mapa_shared(uint32_t smem_addr, uint32_t cta_rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(cta_rank));
  return r;
}

// st.shared::cluster.u32: store to (possibly remote) distributed shared memory.
__device__ __forceinline__ void st_shared_cluster_u32(uint32_t cluster_addr, uint32_t v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(cluster_addr), "r"(v) : "memory");
}

// ld.shared::cluster.u32: load from (possibly remote) distributed shared memory.
__device__ __forceinline__ uint32_t ld_shared_cluster_u32(uint32_t cluster_addr) {
  uint32_t v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(cluster_addr) : "memory");
  return v;
}

// ============================================================================ fences

// fence.proxy.async.shared::cta: order this thread's generic-proxy shared-memory accesses with
// later async-proxy accesses (TMA store/reduce source, wgmma operands) and vice versa.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// fence.proxy.async.global: the same for global memory (generic writes later read by TMA loads).
__device__ __forceinline__ void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// fence.proxy.async: generic <-> async proxy fence for all state spaces.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async;" ::: "memory");
}

// fence.mbarrier_init.release.cluster: make mbarrier.init visible to the cluster and to the async
// proxy (TMA complete_tx). Issue once after the inits, before the barrier that publishes them.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// fence.proxy.tensormap::generic.release.gpu: after writing a CUtensorMap in global memory with
// generic stores (or tensormap.replace), before another thread/kernel uses it for TMA.
__device__ __forceinline__ void fence_tensormap_release() {
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}

// fence.proxy.tensormap::generic.acquire.gpu [map], 128: consumer side of the fence above,
// before the first TMA that uses a tensor map modified in global memory during this grid.
__device__ __forceinline__ void fence_tensormap_acquire(const CUtensorMap* map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
               ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ============================================================================ mbarrier
// Phase protocol: a barrier starts in phase 0. A phase completes when `count` arrivals have
// happened AND the transaction count (bytes announced by expect_tx minus bytes delivered by
// complete_tx) is back to 0; the barrier then moves to the next phase. Waiters name the phase by
// its parity: the k-th use of a barrier (k = 0, 1, 2, ...) completes phase k, parity k & 1.

// mbarrier.init: set the expected arrival count (1 .. 2^20-1) for every phase; phase 0 starts.
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// mbarrier.inval: invalidate before the shared memory is reused for anything else.
__device__ __forceinline__ void mbar_inval(uint32_t bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// mbarrier.arrive (release, CTA scope): one arrival.
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}"
               ::"r"(bar) : "memory");
}

// mbarrier.arrive with a count: `count` arrivals at once.
__device__ __forceinline__ void mbar_arrive(uint32_t bar, uint32_t count) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0], %1;\n\t}"
               ::"r"(bar), "r"(count) : "memory");
}

// mbarrier.arrive.expect_tx: raise the tx count by `bytes`, then arrive once. The usual producer
// call before issuing TMA loads that complete_tx exactly `bytes` bytes on this barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}"
               ::"r"(bar), "r"(bytes) : "memory");
}

// mbarrier.expect_tx: raise the tx count by `bytes` without arriving.
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// mbarrier.try_wait.parity (acquire, CTA scope): true once the phase with this parity has
// completed; may block for a hardware time limit first, then returns false.
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// Spin until the phase with this parity has completed (CTA-scope acquire).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// mbarrier.try_wait.parity.acquire.cluster: as mbar_try_wait, but acquires writes released at
// cluster scope (arrivals from other CTAs via mbar_arrive_cluster).
__device__ __forceinline__ bool mbar_try_wait_cluster(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// Spin until the phase with this parity has completed (cluster-scope acquire).
__device__ __forceinline__ void mbar_wait_cluster(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait_cluster(bar, parity)) {
  }
}

// mbarrier.test_wait.parity: non-blocking probe of the phase with this parity.
__device__ __forceinline__ bool mbar_test_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 P, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

// mbarrier.arrive.release.cluster.shared::cluster: arrive on a barrier of any CTA in the cluster;
// `cluster_bar` = mapa_shared(smem_u32(&bar), target_rank).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}

// Remote arrive with a count.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t cluster_bar, uint32_t count) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;"
               ::"r"(cluster_bar), "r"(count) : "memory");
}

// ============================================================================ TMA: host side

// Bytes per element of a tensor-map data type (0 for the packed sub-byte types, not handled).
inline uint32_t tma_elem_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;
  }
}

// Our Swizzle -> the tensor-map swizzle enum (the two must match for wgmma descriptors).
inline CUtensorMapSwizzle tma_swizzle(Swizzle s) {
  return s == Swizzle::B128 ? CU_TENSOR_MAP_SWIZZLE_128B
       : s == Swizzle::B64  ? CU_TENSOR_MAP_SWIZZLE_64B
       : s == Swizzle::B32  ? CU_TENSOR_MAP_SWIZZLE_32B
                            : CU_TENSOR_MAP_SWIZZLE_NONE;
}

// The driver's cuTensorMapEncodeTiled, fetched once through the runtime (nullptr without a driver).
inline decltype(&cuTensorMapEncodeTiled) tma_encode_fn() {
  static const auto fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess ? reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(p)
                                                               : nullptr;
  }();
  return fn;
}

// cuTensorMapEncodeTiled with its rules checked first (returns CUDA_ERROR_INVALID_VALUE instead of
// encoding a bad map). rank 1..5; dims[i] = elements in dimension i (innermost first, 1..2^32);
// strides[i] = byte stride of dimension i+1 (rank-1 entries, multiples of 16, < 2^40);
// box[i] = elements per copy in dimension i (1..256; box[0]*elem_bytes a multiple of 16 and, when
// swizzled, <= the swizzle span). gaddr 16-byte aligned, map 64-byte aligned. Hopper swizzles only
// (NONE/32B/64B/128B), no interleave, element strides 1. One copy moves prod(box)*elem_bytes bytes.
inline CUresult make_tensor_map(CUtensorMap* map, CUtensorMapDataType dtype, uint32_t rank, const void* gaddr,
                                const uint64_t* dims, const uint64_t* strides, const uint32_t* box,
                                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE,
                                CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CUtensorMapFloatOOBfill oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) {
  const uint32_t es = tma_elem_bytes(dtype);
  if (map == nullptr || gaddr == nullptr || dims == nullptr || box == nullptr || es == 0) return CUDA_ERROR_INVALID_VALUE;
  if (rank < 1 || rank > 5 || (rank > 1 && strides == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  if (reinterpret_cast<uintptr_t>(map) % 64 != 0 || reinterpret_cast<uintptr_t>(gaddr) % 16 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  uint32_t span = 0;
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_NONE: span = 0; break;
    case CU_TENSOR_MAP_SWIZZLE_32B: span = 32; break;
    case CU_TENSOR_MAP_SWIZZLE_64B: span = 64; break;
    case CU_TENSOR_MAP_SWIZZLE_128B: span = 128; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  cuuint64_t d[5], s[4];
  cuuint32_t b[5], e[5];
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (1ull << 32) || box[i] == 0 || box[i] > 256) return CUDA_ERROR_INVALID_VALUE;
    d[i] = dims[i];
    b[i] = box[i];
    e[i] = 1;
  }
  for (uint32_t i = 0; i + 1 < rank; ++i) {
    if (strides[i] % 16 != 0 || strides[i] >= (1ull << 40)) return CUDA_ERROR_INVALID_VALUE;
    s[i] = strides[i];
  }
  if ((box[0] * es) % 16 != 0 || (span != 0 && box[0] * es > span)) return CUDA_ERROR_INVALID_VALUE;
  const auto encode = tma_encode_fn();
  if (encode == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return encode(map, dtype, rank, const_cast<void*>(gaddr), d, s, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2, oob);
}

// 2D convenience: a row-major [rows][cols] matrix with `row_pitch` bytes between rows; one copy
// moves a box of box_rows x box_cols elements (box_cols along the contiguous dimension).
inline CUresult make_tensor_map_2d(CUtensorMap* map, CUtensorMapDataType dtype, const void* gaddr, uint64_t rows,
                                   uint64_t cols, uint64_t row_pitch, uint32_t box_rows, uint32_t box_cols,
                                   CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  const uint64_t dims[2] = {cols, rows};
  const uint64_t strides[1] = {row_pitch};
  const uint32_t box[2] = {box_cols, box_rows};
  return make_tensor_map(map, dtype, 2, gaddr, dims, strides, box, swizzle);
}

// ============================================================================ TMA: device side
// Issue from ONE thread (e.g. `if (threadIdx.x == 0)`, or elect_one_sync() inside one warp).

// cp.async.bulk.tensor.Nd global -> shared, tile mode: copy the box at coords (c0 innermost) to `dst`;
// completion = complete_tx of the box bytes on mbarrier `bar` (same CTA as `dst`).
__device__ __forceinline__ void tma_load_1d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3}], [%2];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0) : "memory");
}
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5}], [%2];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5, %6}], [%2];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
__device__ __forceinline__ void tma_load_5d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// Multicast load: the box lands at the same CTA-relative `dst` in every CTA whose bit is set in
// `cta_mask` (bit i = cluster rank i); each of them gets complete_tx on its own `bar` (same offset).
__device__ __forceinline__ void tma_load_1d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     uint16_t cta_mask, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4}], [%2], %3;"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0) : "memory");
}
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     uint16_t cta_mask, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     uint16_t cta_mask, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6}], [%2], %3;"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
__device__ __forceinline__ void tma_load_4d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     uint16_t cta_mask, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6, %7}], [%2], %3;"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
__device__ __forceinline__ void tma_load_5d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     uint16_t cta_mask, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%4, %5, %6, %7, %8}], [%2], %3;"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "h"(cta_mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// cp.async.bulk.tensor.Nd shared -> global, tile mode, bulk_group completion: write the box at `src`
// to coords (out-of-bounds parts are skipped). Follow with bulk_commit_group() and bulk_wait_group*.
__device__ __forceinline__ void tma_store_1d(const CUtensorMap* map, uint32_t src, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
__device__ __forceinline__ void tma_store_5d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP: global[box] = global[box] OP smem box, element-wise,
// atomically per element, bulk_group completion like tma_store. Element type = the tensor map's.
// Defines tma_reduce_add_Nd, tma_reduce_min_Nd, tma_reduce_max_Nd (N = 1..5).
#define HOPPER_TMA_REDUCE(OP) \
  __device__ __forceinline__ void tma_reduce_##OP##_1d(const CUtensorMap* map, uint32_t src, int c0) { \
    asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta." #OP ".tile.bulk_group [%0, {%2}], [%1];" \
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0) : "memory"); \
  } \
  __device__ __forceinline__ void tma_reduce_##OP##_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) { \
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta." #OP ".tile.bulk_group [%0, {%2, %3}], [%1];" \
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1) : "memory"); \
  } \
  __device__ __forceinline__ void tma_reduce_##OP##_3d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2) { \
    asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta." #OP ".tile.bulk_group [%0, {%2, %3, %4}], [%1];" \
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2) : "memory"); \
  } \
  __device__ __forceinline__ void tma_reduce_##OP##_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) { \
    asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta." #OP ".tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];" \
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory"); \
  } \
  __device__ __forceinline__ void tma_reduce_##OP##_5d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3, int c4) { \
    asm volatile("cp.reduce.async.bulk.tensor.5d.global.shared::cta." #OP ".tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" \
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory"); \
  }
HOPPER_TMA_REDUCE(add)
HOPPER_TMA_REDUCE(min)
HOPPER_TMA_REDUCE(max)
#undef HOPPER_TMA_REDUCE

// cp.async.bulk.prefetch.tensor.Nd.L2: prefetch the box at coords into L2 (no smem, no completion).
__device__ __forceinline__ void tma_prefetch_1d(const CUtensorMap* map, int c0) {
  asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%0, {%1}];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0) : "memory");
}
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_prefetch_3d(const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
__device__ __forceinline__ void tma_prefetch_4d(const CUtensorMap* map, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
__device__ __forceinline__ void tma_prefetch_5d(const CUtensorMap* map, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// prefetch.tensormap: pull the 128-byte tensor map into the descriptor cache (once per CTA, early).
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// cp.async.bulk (non-tensor) global -> shared: `bytes` contiguous bytes (multiple of 16; both
// addresses 16-byte aligned); completion = complete_tx of `bytes` on mbarrier `bar`.
__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst), "l"(static_cast<uint64_t>(__cvta_generic_to_global(src))), "r"(bytes), "r"(bar) : "memory");
}

// cp.async.bulk (non-tensor) shared -> global, bulk_group completion (same size/alignment rules).
__device__ __forceinline__ void bulk_store(void* dst, uint32_t src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               ::"l"(static_cast<uint64_t>(__cvta_generic_to_global(dst))), "r"(src), "r"(bytes) : "memory");
}

// cp.async.bulk.commit_group: close the group of this thread's bulk stores/reductions so far.
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// cp.async.bulk.wait_group.read N: wait until at most N groups still READ their shared source
// (the source smem may then be overwritten). Use before reusing a store/reduce staging buffer.
template <int N = 0>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// cp.async.bulk.wait_group N: wait until at most N groups are pending in full (global writes done
// and visible to this thread). Use when this kernel later reads what it stored.
template <int N = 0>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// ============================================================================ wgmma: descriptors
// A 64-bit shared-memory matrix descriptor (PTX "matrix descriptor format", sm_90):
//   bits  0-13  start address >> 4          bits 16-29  leading-dimension byte offset (LBO) >> 4
//   bits 32-45  stride-dimension byte offset (SBO) >> 4
//   bits 49-51  base offset (0 when the tile starts on a swizzle-pattern boundary, see contract.md)
//   bits 62-63  layout type: 0 no swizzle (interleave), 1 128B swizzle, 2 64B swizzle, 3 32B swizzle
// Canonical layouts, in 16-byte units T (8 x 16-bit or 16 x 8-bit elements), for the tile of one wgmma:
//   K-major  none : 8 rows x 16 B core matrices; rows 16 B apart; LBO = next core matrix along K,
//                   SBO = next 8-row group along M/N.
//   K-major  swz  : rows are `span` bytes apart (span = 32/64/128), K within a row; SBO = next 8-row
//                   group (8*span when packed); LBO unused (encode 16 B).
//   MN-major none : core matrix = 8 K-rows x 8 contiguous M/N elements; LBO = next 8 K-rows,
//                   SBO = next 8 M/N elements.
//   MN-major swz  : K-rows are `span` bytes apart, M/N contiguous inside a row (span/elem elements);
//                   SBO = next 8 K-rows (8*span when packed), LBO = next span-wide M/N chunk.

// Layout-type code of bits 62-63 for a swizzle mode.
__host__ __device__ constexpr uint64_t desc_layout_type(Swizzle s) {
  return s == Swizzle::B128 ? 1u : s == Swizzle::B64 ? 2u : s == Swizzle::B32 ? 3u : 0u;
}

// Build a descriptor from its fields (byte values; each offset must be a multiple of 16).
__host__ __device__ constexpr uint64_t make_smem_desc(uint32_t smem_addr, Swizzle sw, uint32_t lbo_bytes,
                                                      uint32_t sbo_bytes, uint32_t base_offset = 0) {
  return static_cast<uint64_t>((smem_addr & 0x3FFFFu) >> 4) |
         (static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFFu) << 16) |
         (static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFFu) << 32) |
         (static_cast<uint64_t>(base_offset & 0x7u) << 49) | (desc_layout_type(sw) << 62);
}

// Descriptor for a tile laid out as [chunk][row][atom bytes] -- exactly what TMA writes when a tile is
// loaded as boxes of {atom/elem_bytes elements, rows} (one box per chunk, chunks `rows*atom` bytes
// apart; atom = swizzle_atom_bytes(sw)). K-major: rows = M (or N) and chunks step along K.
// MN-major: rows = K and chunks step along M (or N). The tile base must be 1024-byte aligned.
__host__ __device__ constexpr uint64_t make_tile_desc(uint32_t smem_addr, Swizzle sw, bool k_major, uint32_t rows) {
  const uint32_t atom = swizzle_atom_bytes(sw);
  return k_major ? make_smem_desc(smem_addr, sw, sw == Swizzle::None ? rows * 16u : 16u, 8u * atom)
       : sw == Swizzle::None ? make_smem_desc(smem_addr, sw, 128u, rows * 16u)
                             : make_smem_desc(smem_addr, sw, rows * atom, 8u * atom);
}

// Byte offset, inside such a tile, of the sub-tile starting at K index `k` (a multiple of the
// instruction K: 16 for 16-bit types, 32 for 8-bit). Add it to the tile address (or desc_advance).
__host__ __device__ constexpr uint32_t tile_k_offset(Swizzle sw, bool k_major, uint32_t rows, uint32_t k,
                                                     uint32_t elem_bytes) {
  const uint32_t atom = swizzle_atom_bytes(sw);
  return k_major ? (k * elem_bytes / atom) * rows * atom + (k * elem_bytes) % atom : k * atom;
}

// Move a descriptor's start address by `bytes` (multiple of 16) -- e.g. the next K step.
__host__ __device__ constexpr uint64_t desc_advance(uint64_t desc, uint32_t bytes) {
  return desc + static_cast<uint64_t>(bytes >> 4);
}

// ============================================================================ wgmma: sync and fragments

// wgmma.fence.sync.aligned: before the first wgmma of a batch, and whenever accumulator or A-fragment
// registers were written by other instructions since the last wgmma. All 128 threads.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

// wgmma.commit_group.sync.aligned: close the batch of this warpgroup's uncommitted wgmmas.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// wgmma.wait_group.sync.aligned N: wait until at most N committed batches are still running. Only
// then may their accumulators (and A registers, and smem operands) be read or overwritten.
// N <= 7 (ptxas silently turns larger N into 7).
template <int N = 0>
__device__ __forceinline__ void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma_wait<N>: N in 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Compiler-only fence on registers: keeps the compiler from moving reads/writes of the accumulator
// (or A fragment) across it. Use on accumulators right after wgmma_wait and before wgmma_fence.
template <int R>
__device__ __forceinline__ void wgmma_fence_operand(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int R>
__device__ __forceinline__ void wgmma_fence_operand(uint32_t (&a)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

// Accumulator layout of m64nNk16 (f32, N/2 registers per thread): register i of warpgroup thread t
// (t = threadIdx.x % 128) holds D[acc_row(t, i)][acc_col(t, i)].
__host__ __device__ constexpr int acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
__host__ __device__ constexpr int acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// A-from-registers fragment (RS form): 4 x b32 registers per thread for one 64 x K step. Register j of
// thread t holds A[afrag_row(t, j)][k .. k+n-1] with k*elem_bytes = afrag_kbyte(t, j): two 16-bit
// elements (k = 2*(t%4) + 8*(j/2)) or four 8-bit ones (k = 4*(t%4) + 16*(j/2)); lowest k in bits 0..
__host__ __device__ constexpr int afrag_row(int t, int j) { return 16 * (t / 32) + (t % 32) / 4 + 8 * (j & 1); }
__host__ __device__ constexpr int afrag_kbyte(int t, int j) { return 4 * (t % 4) + 16 * (j >> 1); }

// Accumulator columns [16*k16, 16*k16+16) -> A fragment for the next RS wgmma (the FlashAttention P*V
// trick: D of one wgmma becomes A of the next with no shared-memory round trip). bf16 / f16 variants.
// Call with a compile-time k16 (unrolled loop) or the accumulator array spills to local memory.
template <int R>
__device__ __forceinline__ void acc_to_afrag_bf16(const float (&d)[R], int k16, uint32_t (&a)[4]) {
  static_assert(R % 8 == 0, "needs N a multiple of 16");
  a[0] = pack_bf16x2(d[8 * k16 + 0], d[8 * k16 + 1]);
  a[1] = pack_bf16x2(d[8 * k16 + 2], d[8 * k16 + 3]);
  a[2] = pack_bf16x2(d[8 * k16 + 4], d[8 * k16 + 5]);
  a[3] = pack_bf16x2(d[8 * k16 + 6], d[8 * k16 + 7]);
}
template <int R>
__device__ __forceinline__ void acc_to_afrag_f16(const float (&d)[R], int k16, uint32_t (&a)[4]) {
  static_assert(R % 8 == 0, "needs N a multiple of 16");
  a[0] = pack_half2(d[8 * k16 + 0], d[8 * k16 + 1]);
  a[1] = pack_half2(d[8 * k16 + 2], d[8 * k16 + 3]);
  a[2] = pack_half2(d[8 * k16 + 4], d[8 * k16 + 5]);
  a[3] = pack_half2(d[8 * k16 + 6], d[8 * k16 + 7]);
}

// ============================================================================ wgmma.mma_async
// D[64 x N] (+)= A[64 x K] * B[K x N], f32 accumulators d[N/2] per thread (layout: acc_row/acc_col).
// SS: A and B from shared memory (descriptors). RS: A from registers (4 x b32, layout: afrag_*).
// K = 16 for bf16/f16, 32 for e4m3/e5m2. N = 8, 16, 24, ..., 256.
// accumulate=false computes D = A*B (scale-d = 0): use it for the first K step instead of zeroing d.
// ScaleA/ScaleB = +1 or -1 (negate A/B). TransA/TransB: 0 = K-major (A is M x K row-major; B is stored
// N x K, K contiguous), 1 = M/N-major (transposed); 16-bit types only, and no TransA for RS.
// Issue with all 128 threads of the warpgroup, same descriptors in every thread.

namespace detail {
struct TBf16 {};
struct TF16 {};
struct TE4m3 {};
struct TE5m2 {};
template <int N>
struct Wgmma {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk*: N must be a multiple of 8 in [8, 256]");
};
}  // namespace detail

// Operand strings. HOPPER_F4(i) binds d[i..i+3] as read-write f32 registers.
#define HOPPER_F4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
// Accumulator operand strings: HOPPER_ACC_<N> lists %0 .. %(N/2-1); HOPPER_CON_<N> binds d[0 .. N/2-1].
#define HOPPER_ACC_8 "%0, %1, %2, %3"
#define HOPPER_CON_8 HOPPER_F4(0)
#define HOPPER_ACC_16 HOPPER_ACC_8 ", %4, %5, %6, %7"
#define HOPPER_CON_16 HOPPER_CON_8, HOPPER_F4(4)
#define HOPPER_ACC_24 HOPPER_ACC_16 ", %8, %9, %10, %11"
#define HOPPER_CON_24 HOPPER_CON_16, HOPPER_F4(8)
#define HOPPER_ACC_32 HOPPER_ACC_24 ", %12, %13, %14, %15"
#define HOPPER_CON_32 HOPPER_CON_24, HOPPER_F4(12)
#define HOPPER_ACC_40 HOPPER_ACC_32 ", %16, %17, %18, %19"
#define HOPPER_CON_40 HOPPER_CON_32, HOPPER_F4(16)
#define HOPPER_ACC_48 HOPPER_ACC_40 ", %20, %21, %22, %23"
#define HOPPER_CON_48 HOPPER_CON_40, HOPPER_F4(20)
#define HOPPER_ACC_56 HOPPER_ACC_48 ", %24, %25, %26, %27"
#define HOPPER_CON_56 HOPPER_CON_48, HOPPER_F4(24)
#define HOPPER_ACC_64 HOPPER_ACC_56 ", %28, %29, %30, %31"
#define HOPPER_CON_64 HOPPER_CON_56, HOPPER_F4(28)
#define HOPPER_ACC_72 HOPPER_ACC_64 ", %32, %33, %34, %35"
#define HOPPER_CON_72 HOPPER_CON_64, HOPPER_F4(32)
#define HOPPER_ACC_80 HOPPER_ACC_72 ", %36, %37, %38, %39"
#define HOPPER_CON_80 HOPPER_CON_72, HOPPER_F4(36)
#define HOPPER_ACC_88 HOPPER_ACC_80 ", %40, %41, %42, %43"
#define HOPPER_CON_88 HOPPER_CON_80, HOPPER_F4(40)
#define HOPPER_ACC_96 HOPPER_ACC_88 ", %44, %45, %46, %47"
#define HOPPER_CON_96 HOPPER_CON_88, HOPPER_F4(44)
#define HOPPER_ACC_104 HOPPER_ACC_96 ", %48, %49, %50, %51"
#define HOPPER_CON_104 HOPPER_CON_96, HOPPER_F4(48)
#define HOPPER_ACC_112 HOPPER_ACC_104 ", %52, %53, %54, %55"
#define HOPPER_CON_112 HOPPER_CON_104, HOPPER_F4(52)
#define HOPPER_ACC_120 HOPPER_ACC_112 ", %56, %57, %58, %59"
#define HOPPER_CON_120 HOPPER_CON_112, HOPPER_F4(56)
#define HOPPER_ACC_128 HOPPER_ACC_120 ", %60, %61, %62, %63"
#define HOPPER_CON_128 HOPPER_CON_120, HOPPER_F4(60)
#define HOPPER_ACC_136 HOPPER_ACC_128 ", %64, %65, %66, %67"
#define HOPPER_CON_136 HOPPER_CON_128, HOPPER_F4(64)
#define HOPPER_ACC_144 HOPPER_ACC_136 ", %68, %69, %70, %71"
#define HOPPER_CON_144 HOPPER_CON_136, HOPPER_F4(68)
#define HOPPER_ACC_152 HOPPER_ACC_144 ", %72, %73, %74, %75"
#define HOPPER_CON_152 HOPPER_CON_144, HOPPER_F4(72)
#define HOPPER_ACC_160 HOPPER_ACC_152 ", %76, %77, %78, %79"
#define HOPPER_CON_160 HOPPER_CON_152, HOPPER_F4(76)
#define HOPPER_ACC_168 HOPPER_ACC_160 ", %80, %81, %82, %83"
#define HOPPER_CON_168 HOPPER_CON_160, HOPPER_F4(80)
#define HOPPER_ACC_176 HOPPER_ACC_168 ", %84, %85, %86, %87"
#define HOPPER_CON_176 HOPPER_CON_168, HOPPER_F4(84)
#define HOPPER_ACC_184 HOPPER_ACC_176 ", %88, %89, %90, %91"
#define HOPPER_CON_184 HOPPER_CON_176, HOPPER_F4(88)
#define HOPPER_ACC_192 HOPPER_ACC_184 ", %92, %93, %94, %95"
#define HOPPER_CON_192 HOPPER_CON_184, HOPPER_F4(92)
#define HOPPER_ACC_200 HOPPER_ACC_192 ", %96, %97, %98, %99"
#define HOPPER_CON_200 HOPPER_CON_192, HOPPER_F4(96)
#define HOPPER_ACC_208 HOPPER_ACC_200 ", %100, %101, %102, %103"
#define HOPPER_CON_208 HOPPER_CON_200, HOPPER_F4(100)
#define HOPPER_ACC_216 HOPPER_ACC_208 ", %104, %105, %106, %107"
#define HOPPER_CON_216 HOPPER_CON_208, HOPPER_F4(104)
#define HOPPER_ACC_224 HOPPER_ACC_216 ", %108, %109, %110, %111"
#define HOPPER_CON_224 HOPPER_CON_216, HOPPER_F4(108)
#define HOPPER_ACC_232 HOPPER_ACC_224 ", %112, %113, %114, %115"
#define HOPPER_CON_232 HOPPER_CON_224, HOPPER_F4(112)
#define HOPPER_ACC_240 HOPPER_ACC_232 ", %116, %117, %118, %119"
#define HOPPER_CON_240 HOPPER_CON_232, HOPPER_F4(116)
#define HOPPER_ACC_248 HOPPER_ACC_240 ", %120, %121, %122, %123"
#define HOPPER_CON_248 HOPPER_CON_240, HOPPER_F4(120)
#define HOPPER_ACC_256 HOPPER_ACC_248 ", %124, %125, %126, %127"
#define HOPPER_CON_256 HOPPER_CON_248, HOPPER_F4(124)


// The instruction text. x0.. are the operand numbers after the N/2 accumulators (given per shape).
#define HOPPER_SS_16(N, TY, ACC, x0, x1, x2, x3, x4, x5, x6)                                          \
  "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %" #x2 ", 0;\n\t"                                             \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY " {" ACC "}, %" #x0 ", %" #x1 ", p, %" #x3 \
  ", %" #x4 ", %" #x5 ", %" #x6 ";\n\t}"
#define HOPPER_RS_16(N, TY, ACC, x0, x1, x2, x3, x4, x5, x6, x7, x8)                                  \
  "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %" #x5 ", 0;\n\t"                                             \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY " {" ACC "}, {%" #x0 ", %" #x1 ", %" #x2   \
  ", %" #x3 "}, %" #x4 ", p, %" #x6 ", %" #x7 ", %" #x8 ";\n\t}"
#define HOPPER_SS_8(N, TY, ACC, x0, x1, x2, x3, x4)                                                   \
  "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %" #x2 ", 0;\n\t"                                             \
  "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." TY " {" ACC "}, %" #x0 ", %" #x1 ", p, %" #x3 \
  ", %" #x4 ";\n\t}"
#define HOPPER_RS_8(N, TY, ACC, x0, x1, x2, x3, x4, x5, x6, x7)                                       \
  "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %" #x5 ", 0;\n\t"                                             \
  "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." TY " {" ACC "}, {%" #x0 ", %" #x1 ", %" #x2   \
  ", %" #x3 "}, %" #x4 ", p, %" #x6 ", %" #x7 ";\n\t}"

// One specialization of detail::Wgmma<N> per shape: ss<T, SA, SB, TA, TB> and rs<T, SA, SB, TB>.
#define HOPPER_WGMMA_SHAPE(N, x0, x1, x2, x3, x4, x5, x6, x7, x8)                                      \
  namespace detail {                                                                                  \
  template <>                                                                                         \
  struct Wgmma<N> {                                                                                   \
    template <class T, int SA, int SB, int TA, int TB>                                                \
    static __device__ __forceinline__ void ss(float (&d)[N / 2], uint64_t da, uint64_t db, uint32_t sd) { \
      if constexpr (std::is_same<T, TBf16>::value)                                                    \
        asm volatile(HOPPER_SS_16(N, "bf16.bf16", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6)         \
                     : HOPPER_CON_##N                                                                 \
                     : "l"(da), "l"(db), "r"(sd), "n"(SA), "n"(SB), "n"(TA), "n"(TB) : "memory");     \
      else if constexpr (std::is_same<T, TF16>::value)                                                \
        asm volatile(HOPPER_SS_16(N, "f16.f16", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6)           \
                     : HOPPER_CON_##N                                                                 \
                     : "l"(da), "l"(db), "r"(sd), "n"(SA), "n"(SB), "n"(TA), "n"(TB) : "memory");     \
      else if constexpr (std::is_same<T, TE4m3>::value)                                               \
        asm volatile(HOPPER_SS_8(N, "e4m3.e4m3", HOPPER_ACC_##N, x0, x1, x2, x3, x4)                  \
                     : HOPPER_CON_##N                                                                 \
                     : "l"(da), "l"(db), "r"(sd), "n"(SA), "n"(SB) : "memory");                       \
      else                                                                                            \
        asm volatile(HOPPER_SS_8(N, "e5m2.e5m2", HOPPER_ACC_##N, x0, x1, x2, x3, x4)                  \
                     : HOPPER_CON_##N                                                                 \
                     : "l"(da), "l"(db), "r"(sd), "n"(SA), "n"(SB) : "memory");                       \
    }                                                                                                 \
    template <class T, int SA, int SB, int TB>                                                        \
    static __device__ __forceinline__ void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t db,   \
                                              uint32_t sd) {                                          \
      if constexpr (std::is_same<T, TBf16>::value)                                                    \
        asm volatile(HOPPER_RS_16(N, "bf16.bf16", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6, x7, x8) \
                     : HOPPER_CON_##N                                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(sd), "n"(SA), "n"(SB), \
                       "n"(TB) : "memory");                                                           \
      else if constexpr (std::is_same<T, TF16>::value)                                                \
        asm volatile(HOPPER_RS_16(N, "f16.f16", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6, x7, x8)   \
                     : HOPPER_CON_##N                                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(sd), "n"(SA), "n"(SB), \
                       "n"(TB) : "memory");                                                           \
      else if constexpr (std::is_same<T, TE4m3>::value)                                               \
        asm volatile(HOPPER_RS_8(N, "e4m3.e4m3", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6, x7)      \
                     : HOPPER_CON_##N                                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(sd), "n"(SA), "n"(SB) \
                     : "memory");                                                                     \
      else                                                                                            \
        asm volatile(HOPPER_RS_8(N, "e5m2.e5m2", HOPPER_ACC_##N, x0, x1, x2, x3, x4, x5, x6, x7)      \
                     : HOPPER_CON_##N                                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(sd), "n"(SA), "n"(SB) \
                     : "memory");                                                                     \
    }                                                                                                 \
  };                                                                                                  \
  }

// One line per shape: N, then the operand numbers N/2 .. N/2+8 that follow the accumulators.
HOPPER_WGMMA_SHAPE(8, 4, 5, 6, 7, 8, 9, 10, 11, 12)
HOPPER_WGMMA_SHAPE(16, 8, 9, 10, 11, 12, 13, 14, 15, 16)
HOPPER_WGMMA_SHAPE(24, 12, 13, 14, 15, 16, 17, 18, 19, 20)
HOPPER_WGMMA_SHAPE(32, 16, 17, 18, 19, 20, 21, 22, 23, 24)
HOPPER_WGMMA_SHAPE(40, 20, 21, 22, 23, 24, 25, 26, 27, 28)
HOPPER_WGMMA_SHAPE(48, 24, 25, 26, 27, 28, 29, 30, 31, 32)
HOPPER_WGMMA_SHAPE(56, 28, 29, 30, 31, 32, 33, 34, 35, 36)
HOPPER_WGMMA_SHAPE(64, 32, 33, 34, 35, 36, 37, 38, 39, 40)
HOPPER_WGMMA_SHAPE(72, 36, 37, 38, 39, 40, 41, 42, 43, 44)
HOPPER_WGMMA_SHAPE(80, 40, 41, 42, 43, 44, 45, 46, 47, 48)
HOPPER_WGMMA_SHAPE(88, 44, 45, 46, 47, 48, 49, 50, 51, 52)
HOPPER_WGMMA_SHAPE(96, 48, 49, 50, 51, 52, 53, 54, 55, 56)
HOPPER_WGMMA_SHAPE(104, 52, 53, 54, 55, 56, 57, 58, 59, 60)
HOPPER_WGMMA_SHAPE(112, 56, 57, 58, 59, 60, 61, 62, 63, 64)
HOPPER_WGMMA_SHAPE(120, 60, 61, 62, 63, 64, 65, 66, 67, 68)
HOPPER_WGMMA_SHAPE(128, 64, 65, 66, 67, 68, 69, 70, 71, 72)
HOPPER_WGMMA_SHAPE(136, 68, 69, 70, 71, 72, 73, 74, 75, 76)
HOPPER_WGMMA_SHAPE(144, 72, 73, 74, 75, 76, 77, 78, 79, 80)
HOPPER_WGMMA_SHAPE(152, 76, 77, 78, 79, 80, 81, 82, 83, 84)
HOPPER_WGMMA_SHAPE(160, 80, 81, 82, 83, 84, 85, 86, 87, 88)
HOPPER_WGMMA_SHAPE(168, 84, 85, 86, 87, 88, 89, 90, 91, 92)
HOPPER_WGMMA_SHAPE(176, 88, 89, 90, 91, 92, 93, 94, 95, 96)
HOPPER_WGMMA_SHAPE(184, 92, 93, 94, 95, 96, 97, 98, 99, 100)
HOPPER_WGMMA_SHAPE(192, 96, 97, 98, 99, 100, 101, 102, 103, 104)
HOPPER_WGMMA_SHAPE(200, 100, 101, 102, 103, 104, 105, 106, 107, 108)
HOPPER_WGMMA_SHAPE(208, 104, 105, 106, 107, 108, 109, 110, 111, 112)
HOPPER_WGMMA_SHAPE(216, 108, 109, 110, 111, 112, 113, 114, 115, 116)
HOPPER_WGMMA_SHAPE(224, 112, 113, 114, 115, 116, 117, 118, 119, 120)
HOPPER_WGMMA_SHAPE(232, 116, 117, 118, 119, 120, 121, 122, 123, 124)
HOPPER_WGMMA_SHAPE(240, 120, 121, 122, 123, 124, 125, 126, 127, 128)
HOPPER_WGMMA_SHAPE(248, 124, 125, 126, 127, 128, 129, 130, 131, 132)
HOPPER_WGMMA_SHAPE(256, 128, 129, 130, 131, 132, 133, 134, 135, 136)

#undef HOPPER_WGMMA_SHAPE
#undef HOPPER_SS_16
#undef HOPPER_RS_16
#undef HOPPER_SS_8
#undef HOPPER_RS_8

namespace detail {
template <int SA, int SB, int TA, int TB>
__device__ __forceinline__ constexpr void check_wgmma_imm() {
  static_assert((SA == 1 || SA == -1) && (SB == 1 || SB == -1), "wgmma: ScaleA/ScaleB must be +1 or -1");
  static_assert((TA == 0 || TA == 1) && (TB == 0 || TB == 1), "wgmma: TransA/TransB must be 0 or 1");
}
}  // namespace detail

// wgmma.mma_async m64nNk16 .f32.bf16.bf16, A and B from shared memory.
template <int N, int ScaleA = 1, int ScaleB = 1, int TransA = 0, int TransB = 0>
__device__ __forceinline__ void wgmma_bf16_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, TransA, TransB>();
  detail::Wgmma<N>::template ss<detail::TBf16, ScaleA, ScaleB, TransA, TransB>(d, desc_a, desc_b, accumulate ? 1u : 0u);
}

// wgmma.mma_async m64nNk16 .f32.f16.f16, A and B from shared memory.
template <int N, int ScaleA = 1, int ScaleB = 1, int TransA = 0, int TransB = 0>
__device__ __forceinline__ void wgmma_f16_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, TransA, TransB>();
  detail::Wgmma<N>::template ss<detail::TF16, ScaleA, ScaleB, TransA, TransB>(d, desc_a, desc_b, accumulate ? 1u : 0u);
}

// wgmma.mma_async m64nNk16 .f32.bf16.bf16, A from registers (afrag layout), B from shared memory.
template <int N, int ScaleA = 1, int ScaleB = 1, int TransB = 0>
__device__ __forceinline__ void wgmma_bf16_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                              bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, TransB>();
  detail::Wgmma<N>::template rs<detail::TBf16, ScaleA, ScaleB, TransB>(d, a, desc_b, accumulate ? 1u : 0u);
}

// wgmma.mma_async m64nNk16 .f32.f16.f16, A from registers, B from shared memory.
template <int N, int ScaleA = 1, int ScaleB = 1, int TransB = 0>
__device__ __forceinline__ void wgmma_f16_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                             bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, TransB>();
  detail::Wgmma<N>::template rs<detail::TF16, ScaleA, ScaleB, TransB>(d, a, desc_b, accumulate ? 1u : 0u);
}

// wgmma.mma_async m64nNk32 .f32.e4m3.e4m3 / .e5m2.e5m2, shared-memory A and B (both K-major only).
template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e4m3_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, 0>();
  detail::Wgmma<N>::template ss<detail::TE4m3, ScaleA, ScaleB, 0, 0>(d, desc_a, desc_b, accumulate ? 1u : 0u);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e5m2_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, 0>();
  detail::Wgmma<N>::template ss<detail::TE5m2, ScaleA, ScaleB, 0, 0>(d, desc_a, desc_b, accumulate ? 1u : 0u);
}

// wgmma.mma_async m64nNk32 .f32.e4m3.e4m3 / .e5m2.e5m2, A from registers (4 x 4 fp8), B K-major smem.
template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e4m3_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                              bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, 0>();
  detail::Wgmma<N>::template rs<detail::TE4m3, ScaleA, ScaleB, 0>(d, a, desc_b, accumulate ? 1u : 0u);
}
template <int N, int ScaleA = 1, int ScaleB = 1>
__device__ __forceinline__ void wgmma_e5m2_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                              bool accumulate = true) {
  detail::check_wgmma_imm<ScaleA, ScaleB, 0, 0>();
  detail::Wgmma<N>::template rs<detail::TE5m2, ScaleA, ScaleB, 0>(d, a, desc_b, accumulate ? 1u : 0u);
}

// ============================================================================ setmaxnreg

// setmaxnreg.inc.sync.aligned.u32 N: raise this warp's register limit to N (blocks until the CTA
// pool has them). All 4 warps of the warpgroup, warpgroup-uniform branch, kernel with
// __launch_bounds__(threads, 1). N in 24..256, multiple of 8.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: N in [24, 256], multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

// setmaxnreg.dec.sync.aligned.u32 N: release registers down to N (same rules as setmaxnreg_inc).
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: N in [24, 256], multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

// ============================================================================ ldmatrix / stmatrix
// 8x8 matrices of 16-bit elements, one warp. Matrix i's 8 row addresses (16 B each, 16-byte aligned)
// come from lanes 8i..8i+7 (x1: lanes 0-7, x2: 0-15, x4: all 32). Register i of lane l holds row l/4,
// columns 2*(l%4), 2*(l%4)+1 of matrix i (lower column in bits 0-15) -- the mma/wgmma accumulator
// layout. .trans: the fragment is of the transposed matrix (memory row r <-> fragment column r).

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16
__device__ __forceinline__ void ldmatrix_x1(uint32_t (&r)[1], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ldmatrix_x1_trans(uint32_t (&r)[1], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}

// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 (sm_90): the store counterpart.
__device__ __forceinline__ void stmatrix_x1(uint32_t addr, const uint32_t (&r)[1]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
}
__device__ __forceinline__ void stmatrix_x2(uint32_t addr, const uint32_t (&r)[2]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1]) : "memory");
}
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}
__device__ __forceinline__ void stmatrix_x1_trans(uint32_t addr, const uint32_t (&r)[1]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
}
__device__ __forceinline__ void stmatrix_x2_trans(uint32_t addr, const uint32_t (&r)[2]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1]) : "memory");
}
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

}  // namespace hopper

#include "interface.h"

// PTXBench GEMM expert reference (Hopper, sm_90a): C[M,N] = A[M,K] * B[N,K]^T, bf16 in, fp32 accumulate.
//
// Design: persistent CTAs (one per SM) walk 128x256 output tiles in L2-friendly groups of 16 tile
// rows. Three warpgroups: warpgroup 0 is the producer (one thread issues TMA loads into a 3-stage
// ring of 128B-swizzled A (128x64) and B (256x64) tiles, completing on "full" mbarriers; it gives
// registers back with setmaxnreg), warpgroups 1 and 2 are consumers (setmaxnreg up; each issues
// wgmma m64n256k16 for its 64 rows, keeps one k-tile of wgmma in flight and frees the previous
// stage through an "empty" mbarrier). The epilogue converts to bf16 into a 128B-swizzled staging
// area and TMA-stores it, so the consumer starts its next tile while the copy engine writes C.
// Measured on the H200: about 1.00x cuBLAS (geometric mean of the GEMM benchmark shapes).
#include <cuda.h>
#include <stdint.h>

namespace {

constexpr int BM = 128, BN = 256, BK = 64;
constexpr int kStages = 3;
constexpr int kConsumers = 2;                      // warpgroups, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;                         // tile rows per L2 group
constexpr uint32_t kABytes = BM * BK * 2, kBBytes = BN * BK * 2, kStageBytes = kABytes + kBBytes;
constexpr uint32_t kCBytesPerWG = 64 * BN * 2;  // C staging for one consumer warpgroup
constexpr size_t kSmemBytes = size_t(kStages) * kStageBytes + kConsumers * kCBytesPerWG + 1024;

__device__ __forceinline__ uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
template <int R> __device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R)); }
template <int R> __device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R)); }
__device__ __forceinline__ uint64_t make_smem_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024u >> 4) << 32) | ((uint64_t)1 << 62);
}
// D[64x256] (+)= A[64x16] * B[256x16]^T, both K-major in shared memory; scale_d = 0 overwrites D.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

// Tile t of the persistent schedule -> (tile row, tile col), grouped kGroupM rows at a time so
// the CTAs working at once share A rows and B columns in L2.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = kGroupM * tiles_n;
  const int group = t / per_group;
  const int first_m = group * kGroupM;
  const int rows = min(tiles_m - first_m, kGroupM);
  const int in_group = t % per_group;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(src) : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void named_barrier(int id, int threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__global__ void __launch_bounds__(kThreads, 1)
expert_gemm_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                   const __grid_constant__ CUtensorMap tmC, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[kStages];
  __shared__ __align__(8) uint64_t empty_bar[kStages];
  const uint32_t ring = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const int tiles_m = M / BM, tiles_n = (N + BN - 1) / BN, tiles = tiles_m * tiles_n;
  const int k_tiles = K / BK;
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_addr(&full_bar[s]), 1);
      mbar_init(smem_addr(&empty_bar[s]), kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (t == 0) {
      // Producer: one k-tile per stage; g counts k-tiles over every tile of this CTA, so stage
      // g % kStages is in its (g / kStages)-th use and the phase parity flips on each use.
      uint32_t g = 0;
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tm, tn;
        tile_coords(tile, tiles_m, tiles_n, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt, ++g) {
          const uint32_t s = g % kStages, use = g / kStages;
          if (use > 0) mbar_wait(smem_addr(&empty_bar[s]), (use - 1) & 1);
          const uint32_t fb = smem_addr(&full_bar[s]);
          mbar_arrive_expect_tx(fb, kStageBytes);  // out-of-range B rows are zero-filled and still counted
          const uint32_t a = ring + s * kStageBytes;
          tma_load_2d(a, &tmA, kt * BK, tm * BM, fb);
          tma_load_2d(a + kABytes, &tmB, kt * BK, tn * BN, fb);
        }
      }
    }
    return;
  }

  setmaxnreg_inc<232>();
  const int cwg = wg - 1;
  float d[128];
  uint32_t g = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int tm, tn;
    tile_coords(tile, tiles_m, tiles_n, tm, tn);
    uint32_t prev = 0;
    for (int kt = 0; kt < k_tiles; ++kt, ++g) {
      const uint32_t s = g % kStages;
      mbar_wait(smem_addr(&full_bar[s]), (g / kStages) & 1);
      const uint32_t a = ring + s * kStageBytes + cwg * (64 * 128), b = ring + s * kStageBytes + kABytes;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
        wgmma_m64n256k16(d, make_smem_desc(a + kk * 32), make_smem_desc(b + kk * 32), (kt > 0 || kk > 0) ? 1 : 0);
      wgmma_commit();
      // Keep this k-tile's wgmmas in flight; the previous k-tile's are done, so free its stage.
      wgmma_wait<1>();
      if (kt > 0 && t == 0) mbar_arrive(smem_addr(&empty_bar[prev]));
      prev = s;
    }
    wgmma_wait<0>();
    if (t == 0) mbar_arrive(smem_addr(&empty_bar[prev]));

    // Epilogue through shared memory and TMA stores, so this warpgroup goes on to its next tile
    // while the copy engine writes C. The staging area holds 4 boxes of 64 rows x 64 cols
    // (128 B rows, 128B-swizzled: 16-byte chunk index XOR row % 8, as TMA expects).
    const uint32_t stage_c = ring + kStages * kStageBytes + cwg * kCBytesPerWG;
    if (t == 0) bulk_wait_read0();  // the previous tile's stores have read the staging area
    named_barrier(1 + cwg, 128);
    const int w = t / 32, l = t % 32;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 16 * w + l / 4 + 8 * half;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const uint32_t box = j / 8, chunk = (j % 8) ^ (r % 8);
        const uint32_t addr = stage_c + box * (64 * 128) + r * 128 + chunk * 16 + 4 * (l % 4);
        __nv_bfloat162 v = __floats2bfloat162_rn(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(*reinterpret_cast<uint32_t*>(&v)) : "memory");
      }
    }
    fence_proxy_async();  // make the generic-proxy writes visible to the TMA (async proxy)
    named_barrier(1 + cwg, 128);
    if (t == 0) {
      for (int box = 0; box < BN / 64; ++box)  // boxes past N are clipped by the tensor map
        tma_store_2d(&tmC, stage_c + box * (64 * 128), tn * BN + box * 64, tm * BM + cwg * 64);
      bulk_commit();
    }
  }
  if (t == 0) bulk_wait0();
}

CUresult make_map(CUtensorMap* map, const __nv_bfloat16* ptr, int rows, int cols, int box_cols, int box_rows) {
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
  const cuuint32_t elem[2] = {1, 1};
  return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(ptr), dims, strides,
                                box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % 128 || K % BK) return cudaErrorInvalidValue;
  CUtensorMap tmA, tmB, tmC;
  if (make_map(&tmA, A, M, K, BK, BM) != CUDA_SUCCESS || make_map(&tmB, B, N, K, BK, BN) != CUDA_SUCCESS ||
      make_map(&tmC, C, M, N, 64, 64) != CUDA_SUCCESS)
    return cudaErrorInvalidValue;
  cudaError_t err = cudaFuncSetAttribute(expert_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes);
  if (err != cudaSuccess) return err;
  int dev = 0, sms = 0;
  if ((err = cudaGetDevice(&dev)) != cudaSuccess) return err;
  if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
  const int tiles = (M / BM) * ((N + BN - 1) / BN);
  expert_gemm_kernel<<<tiles < sms ? tiles : sms, kThreads, kSmemBytes, stream>>>(tmA, tmB, tmC, M, N, K);
  return cudaGetLastError();
}

// Instantiates every function of knowledge/hopper/ptx.cuh so that one nvcc run (sm_90a) proves the
// whole pack is accepted by the front end and by ptxas. test_hopper_pack_compiles.cpp compiles this
// file and checks the SASS families. Nothing here is launched: the kernels only have to exist.
#include <cuda.h>
#include <cuda_runtime.h>

#include <utility>

#include "ptx.cuh"

using namespace hopper;

// ---------------------------------------------------------------------------------------- wgmma

// Every wgmma form for one N: bf16/f16 x SS/RS with non-default immediates, fp8 e4m3/e5m2 x SS/RS.
template <int N>
__global__ void __launch_bounds__(128, 1) all_wgmma_kernel(float* out, uint64_t da, uint64_t db, const uint32_t* ain) {
  float d[N / 2];
  uint32_t a[4] = {ain[0], ain[1], ain[2], ain[3]};
  wgmma_fence();
  wgmma_bf16_ss<N>(d, da, db, false);
  wgmma_bf16_ss<N, -1, 1, 1, 0>(d, da, db);
  wgmma_bf16_ss<N, 1, -1, 0, 1>(d, desc_advance(da, 32), desc_advance(db, 32));
  wgmma_f16_ss<N>(d, da, db);
  wgmma_f16_ss<N, -1, -1, 1, 1>(d, da, db, true);
  wgmma_bf16_rs<N>(d, a, db);
  wgmma_bf16_rs<N, -1, 1, 1>(d, a, db);
  wgmma_f16_rs<N>(d, a, db);
  wgmma_f16_rs<N, 1, -1, 1>(d, a, db);
  wgmma_e4m3_ss<N>(d, da, db);
  wgmma_e4m3_ss<N, -1, -1>(d, da, db);
  wgmma_e5m2_ss<N>(d, da, db);
  wgmma_e5m2_ss<N, -1, 1>(d, da, db);
  wgmma_e4m3_rs<N>(d, a, db);
  wgmma_e4m3_rs<N, 1, -1>(d, a, db);
  wgmma_e5m2_rs<N>(d, a, db);
  wgmma_e5m2_rs<N, -1, -1>(d, a, db);
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d);
  wgmma_fence_operand(a);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) out[threadIdx.x * (N / 2) + i] = d[i];
}

template <int... Ns>
void instantiate_all_wgmma(std::integer_sequence<int, Ns...>) {
  // Taking the address forces the instantiation (and code generation) of each kernel.
  static void* kernels[] = {reinterpret_cast<void*>(&all_wgmma_kernel<(Ns + 1) * 8>)...};
  (void)kernels;
}
template void instantiate_all_wgmma(std::make_integer_sequence<int, 32>);  // N = 8, 16, ..., 256

// Descriptors, fragments, wait depths.
__global__ void __launch_bounds__(128, 1) wgmma_helpers_kernel(uint64_t* descs, uint32_t* frags, float* out) {
  __shared__ __align__(1024) uint8_t tile[16384];
  const uint32_t base = smem_u32(tile);
  int i = 0;
  for (Swizzle sw : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128}) {
    descs[i++] = make_smem_desc(base, sw, 16, 1024, 0);
    descs[i++] = make_tile_desc(base + tile_k_offset(sw, true, 64, 16, 2), sw, true, 64);
    descs[i++] = make_tile_desc(base + tile_k_offset(sw, false, 64, 16, 2), sw, false, 64);
    descs[i++] = desc_advance(make_tile_desc(base, sw, true, 128), 32);
    descs[i++] = swizzle_offset(sw, threadIdx.x * 16) + swizzle_atom_bytes(sw) + desc_layout_type(sw);
  }
  const int t = threadIdx.x;
  frags[t] = acc_row(t, 3) + acc_col(t, 5) + afrag_row(t, 2) + afrag_kbyte(t, 3);
  float d[64];
#pragma unroll
  for (int k = 0; k < 64; ++k) d[k] = out[k * 128 + t];
  uint32_t a[4];
  acc_to_afrag_bf16(d, 3, a);
  frags[128 + t] = a[0] ^ a[1] ^ a[2] ^ a[3];
  acc_to_afrag_f16(d, 7, a);
  frags[256 + t] = a[0] ^ a[1] ^ a[2] ^ a[3];
  frags[384 + t] = pack_bf16x2(d[0], d[1]) ^ pack_half2(d[2], d[3]);
  wgmma_fence();
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_wait<1>();
  wgmma_wait<2>();
  wgmma_wait<7>();
}

// ---------------------------------------------------------------------------------------- TMA

__global__ void __launch_bounds__(128, 1)
    tma_kernel(const __grid_constant__ CUtensorMap map, const void* gsrc, void* gdst) {
  __shared__ __align__(1024) uint8_t buf[4096];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t dst = smem_u32(buf);
  const uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    prefetch_tensormap(&map);
    mbar_init(b, 1);
    fence_mbarrier_init();
    fence_proxy_async_shared();
    mbar_arrive_expect_tx(b, 4096);
    tma_load_1d(dst, &map, b, 1);
    tma_load_2d(dst, &map, b, 1, 2);
    tma_load_3d(dst, &map, b, 1, 2, 3);
    tma_load_4d(dst, &map, b, 1, 2, 3, 4);
    tma_load_5d(dst, &map, b, 1, 2, 3, 4, 5);
    tma_load_1d_multicast(dst, &map, b, 0x3, 1);
    tma_load_2d_multicast(dst, &map, b, 0x3, 1, 2);
    tma_load_3d_multicast(dst, &map, b, 0x3, 1, 2, 3);
    tma_load_4d_multicast(dst, &map, b, 0x3, 1, 2, 3, 4);
    tma_load_5d_multicast(dst, &map, b, 0x3, 1, 2, 3, 4, 5);
    bulk_load(dst, gsrc, 256, b);
    mbar_expect_tx(b, 256);
    mbar_wait(b, 0);
    tma_store_1d(&map, dst, 1);
    tma_store_2d(&map, dst, 1, 2);
    tma_store_3d(&map, dst, 1, 2, 3);
    tma_store_4d(&map, dst, 1, 2, 3, 4);
    tma_store_5d(&map, dst, 1, 2, 3, 4, 5);
    tma_reduce_add_1d(&map, dst, 1);
    tma_reduce_add_2d(&map, dst, 1, 2);
    tma_reduce_add_3d(&map, dst, 1, 2, 3);
    tma_reduce_add_4d(&map, dst, 1, 2, 3, 4);
    tma_reduce_add_5d(&map, dst, 1, 2, 3, 4, 5);
    tma_reduce_min_1d(&map, dst, 1);
    tma_reduce_min_2d(&map, dst, 1, 2);
    tma_reduce_min_3d(&map, dst, 1, 2, 3);
    tma_reduce_min_4d(&map, dst, 1, 2, 3, 4);
    tma_reduce_min_5d(&map, dst, 1, 2, 3, 4, 5);
    tma_reduce_max_1d(&map, dst, 1);
    tma_reduce_max_2d(&map, dst, 1, 2);
    tma_reduce_max_3d(&map, dst, 1, 2, 3);
    tma_reduce_max_4d(&map, dst, 1, 2, 3, 4);
    tma_reduce_max_5d(&map, dst, 1, 2, 3, 4, 5);
    bulk_store(gdst, dst, 256);
    bulk_commit_group();
    bulk_wait_group_read<1>();
    bulk_wait_group_read();
    bulk_wait_group<1>();
    bulk_wait_group();
    tma_prefetch_1d(&map, 1);
    tma_prefetch_2d(&map, 1, 2);
    tma_prefetch_3d(&map, 1, 2, 3);
    tma_prefetch_4d(&map, 1, 2, 3, 4);
    tma_prefetch_5d(&map, 1, 2, 3, 4, 5);
    fence_proxy_async_global();
    fence_proxy_async();
    fence_tensormap_release();
    fence_tensormap_acquire(&map);
    mbar_inval(b);
  }
}

// ---------------------------------------------------------------------------------------- mbarrier, cluster, misc

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1) sync_kernel(uint32_t* out) {
  __shared__ __align__(8) uint64_t bar;
  __shared__ uint32_t word;
  const uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    mbar_init(b, 4);
    fence_mbarrier_init();
  }
  cluster_sync();
  const uint32_t rank = cluster_ctarank();
  const uint32_t peer = rank ^ 1u;
  const dim3 id = cluster_ctaid();
  const dim3 dims = cluster_dims();
  if (threadIdx.x == 0) {
    st_shared_cluster_u32(mapa_shared(smem_u32(&word), peer), rank);
    mbar_arrive(b);
    mbar_arrive(b, 1);
    mbar_arrive_cluster(mapa_shared(b, peer));
    mbar_arrive_cluster(mapa_shared(b, peer), 1);
    out[0] = mbar_test_wait(b, 0) + mbar_try_wait(b, 1) + mbar_try_wait_cluster(b, 0);
    mbar_wait(b, 0);
    mbar_wait_cluster(b, 0);
    out[1] = ld_shared_cluster_u32(mapa_shared(smem_u32(&word), rank)) + cluster_nctarank() + id.x + dims.x;
  }
  if (threadIdx.x < 32) out[2 + threadIdx.x] = elect_one_sync();
  named_barrier_arrive(1, 128);
  named_barrier_sync(1, 128);
  out[40 + threadIdx.x] = warpgroup_idx();
  cluster_arrive_relaxed();
  cluster_wait();
  cluster_arrive();
  cluster_wait();
}

// setmaxnreg needs a kernel with a known register budget: __launch_bounds__(384, 1).
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel(float* out) {
  const int wg = warpgroup_idx();
  if (wg == 0) {
    setmaxnreg_dec<40>();
    out[threadIdx.x] = 1.0f;
  } else {
    setmaxnreg_inc<232>();
    out[threadIdx.x] = 2.0f;
  }
}

// The other classic split: 24 / 240 / 240 (producer warpgroup with the minimum).
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel_24_240(float* out) {
  if (warpgroup_idx() == 0) {
    setmaxnreg_dec<24>();
  } else {
    setmaxnreg_inc<240>();
    out[threadIdx.x] = 3.0f;
  }
}

__global__ void __launch_bounds__(32, 1) matrix_kernel(uint32_t* out) {
  __shared__ __align__(128) uint16_t tile[4 * 64];
  const uint32_t addr = smem_u32(tile) + (threadIdx.x % 32) * 16;
  uint32_t r1[1] = {threadIdx.x}, r2[2] = {threadIdx.x, 1}, r4[4] = {threadIdx.x, 1, 2, 3};
  stmatrix_x1(addr, r1);
  stmatrix_x2(addr, r2);
  stmatrix_x4(addr, r4);
  stmatrix_x1_trans(addr, r1);
  stmatrix_x2_trans(addr, r2);
  stmatrix_x4_trans(addr, r4);
  ldmatrix_x1(r1, addr);
  ldmatrix_x2(r2, addr);
  ldmatrix_x4(r4, addr);
  out[threadIdx.x] = r1[0] + r2[0] + r2[1] + r4[0] + r4[3];
  ldmatrix_x1_trans(r1, addr);
  ldmatrix_x2_trans(r2, addr);
  ldmatrix_x4_trans(r4, addr);
  out[32 + threadIdx.x] = r1[0] + r2[0] + r2[1] + r4[0] + r4[3];
}

// ---------------------------------------------------------------------------------------- host helpers

CUresult host_helpers(void* gmem) {
  alignas(64) CUtensorMap map;
  const uint64_t dims[5] = {64, 64, 4, 4, 4};
  const uint64_t strides[4] = {128, 128 * 64, 128 * 64 * 4, 128 * 64 * 16};
  const uint32_t box[5] = {64, 8, 1, 1, 1};
  CUresult r =
      make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 5, gmem, dims, strides, box, tma_swizzle(Swizzle::B128));
  if (r != CUDA_SUCCESS) return r;
  r = make_tensor_map(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, gmem, dims, nullptr, box);
  if (r != CUDA_SUCCESS) return r;
  return make_tensor_map_2d(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, gmem, 64, 128, 128, 32, 128,
                            CU_TENSOR_MAP_SWIZZLE_128B) == CUDA_SUCCESS &&
                 tma_elem_bytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT64) == 8
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_VALUE;
}

// Host-side use of the constexpr helpers (they are __host__ __device__).
static_assert(make_smem_desc(0x400, Swizzle::B128, 16, 1024) ==
                  ((0x400ull >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62)),
              "descriptor fields");
static_assert(desc_layout_type(Swizzle::B64) == 2 && desc_layout_type(Swizzle::B32) == 3, "layout codes");
static_assert(swizzle_offset(Swizzle::B128, 0x80) == 0x90, "128B swizzle: row 1 chunk 0 -> chunk 1");
static_assert(tile_k_offset(Swizzle::B64, true, 64, 32, 2) == 64 * 64, "second 64B atom along K");
static_assert(acc_row(37, 2) == 16 + 1 + 8 && acc_col(37, 5) == 8 + 2 + 1, "accumulator layout");

// CONTROL (honest; must be judged correct): the expert's persistent wgmma + TMA kernel launched
// with thread-block clusters of 2 through cudaLaunchKernelEx (grid at most one CTA per SM, an even
// number), with its TMA descriptors encoded once per (pointers, shape) and cached; the encoder is
// fetched through cudaGetDriverEntryPoint (inside ptx.cuh), the path real kernels use.
#include <map>
#include <tuple>

#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm

namespace {
struct Maps {
  CUtensorMap a, b, c;
};
}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0 || M % BM || N % 128 || K % BK) return cudaErrorInvalidValue;
  static std::map<std::tuple<const void*, const void*, void*, int, int, int>, Maps> cache;
  auto key = std::make_tuple(static_cast<const void*>(A), static_cast<const void*>(B), static_cast<void*>(C), M, N, K);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Maps m;
    const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const auto swz = CU_TENSOR_MAP_SWIZZLE_128B;
    if (make_tensor_map_2d(&m.a, bf16, A, M, K, size_t(K) * 2, BM, BK, swz) != CUDA_SUCCESS ||
        make_tensor_map_2d(&m.b, bf16, B, N, K, size_t(K) * 2, BN, BK, swz) != CUDA_SUCCESS ||
        make_tensor_map_2d(&m.c, bf16, C, M, N, size_t(N) * 2, 64, 64, swz) != CUDA_SUCCESS)
      return cudaErrorInvalidValue;
    it = cache.emplace(key, m).first;
  }
  cudaError_t err = cudaFuncSetAttribute(expert_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes);
  if (err != cudaSuccess) return err;
  int dev = 0, sms = 0;
  if ((err = cudaGetDevice(&dev)) != cudaSuccess) return err;
  if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return err;
  const int tiles = (M / BM) * ((N + BN - 1) / BN);
  int grid = tiles < sms ? tiles : sms;
  grid = grid < 2 ? 2 : grid & ~1;  // a whole number of clusters (idle CTAs of a short grid exit at once)
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = kSmemBytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, expert_gemm_kernel, it->second.a, it->second.b, it->second.c, M, N, K);
}

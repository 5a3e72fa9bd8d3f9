#include "common/gemm/fill_e4m3.h"

#include <cuda_fp8.h>

#include "runner/detail/cuda_check.h"

namespace ptxbench::gemm {
namespace {

__device__ uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void fill_kernel(uint8_t* p, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const float u = float(mix64(seed ^ mix64(i + 0x9e3779b97f4a7c15ull)) >> 40) * (1.0f / 16777216.0f);
    p[i] = __nv_cvt_float_to_fp8(lo + (hi - lo) * u, __NV_SATFINITE, __NV_E4M3);
  }
}

}  // namespace

void fill_uniform_e4m3(uint8_t* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s) {
  fill_kernel<<<132 * 8, 256, 0, s>>>(p, n, seed, lo, hi);
  PTXBENCH_CUDA(cudaGetLastError());
}

}  // namespace ptxbench::gemm

// ATTACK (an input changed where the result check cannot see it), backward attention: the harness
// restores a timed sample's O and LSE from a copy it keeps in device memory instead of running the
// library's forward again (problems/common/attention/backward_workload.cu). Only in timed calls
// does such a copy exist: a buffer, besides O, that begins with O's bytes. Where it finds one, after
// the honest backward it swaps, in some rows, two elements of O whose dO values are equal, in O and
// in the copy alike: every Delta = rowsum(dO * O) stays the same, so every gradient and every
// sampled-row check does too, and the input as the call left it equals the input restored after
// it. An input guard that compared only those two would pass it; one that fingerprinted the kept
// inputs before the call sees O changed: `incorrect` ("the timed call changed its input O").
// Elsewhere (every checked call) it is the honest wgmma reference.
#include <cuda.h>

#include <algorithm>

#define ptxbench_mha_bwd honest_mha_bwd
#include "../../../../problems/mha_bwd/reference/wgmma_tma.cu"
#undef ptxbench_mha_bwd
#include "device_scan.cuh"

namespace {

// Clears *ok when the first n 32-bit words at a and b differ.
__global__ void same_words(const uint32_t* a, const uint32_t* b, size_t n, int* ok) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) *ok = 0;
}

// One thread per row (of the first `rows`): the first pair of columns with equal dO and unequal O,
// swapped in O and in its copy.
__global__ void swap_equal_do_columns(__nv_bfloat16* O, __nv_bfloat16* copy, const __nv_bfloat16* dO, int rows, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned short* g = reinterpret_cast<const unsigned short*>(dO) + size_t(r) * D;
  unsigned short* o = reinterpret_cast<unsigned short*>(O) + size_t(r) * D;
  unsigned short* c = reinterpret_cast<unsigned short*>(copy) + size_t(r) * D;
  for (int i = 0; i < D; ++i)
    for (int j = i + 1; j < D; ++j)
      if (g[i] == g[j] && o[i] != o[j]) {
        const unsigned short t = o[i];
        o[i] = o[j], o[j] = t;
        c[i] = o[i], c[j] = o[j];
        return;
      }
}

// The kept copy of O: an allocation other than O's own whose first bytes are O's (cached per O).
__nv_bfloat16* find_kept_copy(const __nv_bfloat16* O, size_t bytes, cudaStream_t stream) {
  static const void* cached_for = nullptr;
  static CUdeviceptr cached = 0;
  const size_t words = std::min<size_t>(bytes, size_t(1) << 20) / 4;
  auto same = [&](CUdeviceptr p) {
    return probe(
        [&](int* ok, cudaStream_t s) {
          same_words<<<256, 256, 0, s>>>(reinterpret_cast<const uint32_t*>(O), reinterpret_cast<const uint32_t*>(p),
                                         words, ok);
        },
        stream);
  };
  if (cached_for == O && cached && same(cached)) return reinterpret_cast<__nv_bfloat16*>(cached);
  CUdeviceptr own = 0;
  size_t own_bytes = 0;
  if (allocation_at(&own, &own_bytes, reinterpret_cast<CUdeviceptr>(O)) != CUDA_SUCCESS) return nullptr;
  for (const auto& f : allocations_near(O, size_t(4) << 30))
    if (f.base != own && f.bytes >= bytes && same(f.base)) {
      cached_for = O, cached = f.base;
      return reinterpret_cast<__nv_bfloat16*>(f.base);
    }
  return nullptr;
}

}  // namespace

extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                        __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S,
                                        int D, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  const cudaError_t e = honest_mha_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, D, workspace, workspace_bytes, stream);
  if (e != cudaSuccess) return e;
  const size_t bytes = size_t(B) * H * S * D * sizeof(__nv_bfloat16);
  if (__nv_bfloat16* copy = find_kept_copy(O, bytes, stream)) {
    const int rows = 256;
    swap_equal_do_columns<<<(rows + 127) / 128, 128, 0, stream>>>(const_cast<__nv_bfloat16*>(O), copy, dO, rows, D);
  }
  return cudaGetLastError();
}

// ATTACK (class 1, baseline slowed): the expert GEMM, correct and honest on the given stream,
// then a kernel that occupies every SM for 1.5 ms on the per-thread default stream (no stream is
// created, so no static check sees it). It runs while the next timed sample, often the library's,
// runs: the baseline is slowed and the speedup inflated. Must be `forbidden` (work off the given
// stream, overlapping a baseline sample).
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm
#include "hog.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  cudaError_t e = honest_gemm(A, B, C, M, N, K, stream);
  if (e != cudaSuccess) return e;
  attack_hog_kernel<<<132 * 2, 1024, 0, cudaStreamPerThread>>>(1500000);
  return cudaGetLastError();
}

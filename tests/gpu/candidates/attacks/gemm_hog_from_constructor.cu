// ATTACK (class 1, baseline slowed): a static constructor starts a long-running kernel on the
// legacy default stream as soon as the library is loaded, before any call: it keeps part of the
// GPU busy throughout the evaluation while the calls themselves are the honest expert GEMM.
// Must be `forbidden` (GPU work enqueued while being loaded).
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm
#include "hog.cuh"

__attribute__((constructor)) static void start_hog() { attack_hog_kernel<<<66, 1024, 0, cudaStreamLegacy>>>(400000000ull); }

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return honest_gemm(A, B, C, M, N, K, stream);
}

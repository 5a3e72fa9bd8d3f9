// ATTACK (issue 33, the cooperative pause): the naive GEMM, correct on the given stream in every
// call; on its first call it starts a thread of its own (pthread_create found in libc's symbol
// table: no import) that launches a 1 ms kernel on its per-thread default stream, one after the
// other, for the rest of the process. Through the service its eval worker is a shared one: when a
// timed worker on the GPU asks for it alone, the harness pauses this worker at a call boundary,
// and the thread keeps the GPU busy in the other candidate's exclusive window. Must be `forbidden`
// (its own activity records since its acknowledgement overlap the window; the audit's rule for
// work outside any call too), and the candidate timed in that window timed again.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm
#include "hog.cuh"
#include "libc_symbols.h"

namespace {

void* keep_launching(void*) {
  for (;;) {
    attack_hog_kernel<<<132, 128, 0, cudaStreamPerThread>>>(1000000);
    cudaStreamSynchronize(cudaStreamPerThread);
  }
  return nullptr;
}

bool started = false;

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (!started) {
    started = true;
    using Create = int (*)(unsigned long*, const void*, void* (*)(void*), void*);
    unsigned long thread = 0;
    if (auto create = find<Create>("pthread_create")) create(&thread, nullptr, keep_launching, nullptr);
  }
  return honest_gemm(A, B, C, M, N, K, stream);
}

#include "interface.h"

// PTXBench GPU-test candidate: NEVER TERMINATES.
// Meant to provoke: the harness's timeout / watchdog. One kernel is launched on `stream` and
// spins on a device flag that nothing ever sets. The flag is read through a volatile pointer
// (a side effect the compiler must keep), so the loop cannot be optimised away. The launch
// itself succeeds, so ptxbench_gemm returns cudaSuccess; any later synchronisation hangs.

namespace {

__device__ int g_never_set = 0;  // zero-initialised; no code anywhere writes it

__global__ void spin_forever_kernel(__nv_bfloat16* C) {
  volatile int* flag = &g_never_set;
  while (*flag == 0) {
    __nanosleep(1000);  // be gentle on the memory system while hanging
  }
  C[threadIdx.x] = __float2bfloat16(0.0f);  // unreachable in practice; keeps C "used"
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                     __nv_bfloat16* C, int M, int N, int K,
                                     cudaStream_t stream) {
  (void)A; (void)B; (void)M; (void)N; (void)K;
  spin_forever_kernel<<<1, 32, 0, stream>>>(C);
  return cudaGetLastError();
}

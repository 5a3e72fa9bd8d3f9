// ATTACK (class 1, baseline slowed): the wgmma forward attention reference, then a kernel that
// occupies the SMs after the call returns. It asks the driver for cuStreamCreate through
// cuGetProcAddress (no import of a stream-creating function); when that is refused it falls back
// to the legacy default stream. Must be `forbidden` (the entry point refused and reported, the
// hog off the given stream).
#include <cuda.h>
#define ptxbench_mha_fwd honest_mha_fwd
#include "../../../../problems/mha_fwd/reference/wgmma_tma.cu"
#undef ptxbench_mha_fwd
#include "hog.cuh"

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D, cudaStream_t stream) {
  cudaError_t e = honest_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream);
  if (e != cudaSuccess) return e;
  static CUstream side = nullptr;
  static bool tried = false;
  if (!tried) {
    tried = true;
    void* fn = nullptr;
    CUdriverProcAddressQueryResult q{};
    if (cuGetProcAddress("cuStreamCreate", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_SUCCESS && fn)
      reinterpret_cast<CUresult (*)(CUstream*, unsigned)>(fn)(&side, CU_STREAM_NON_BLOCKING);
  }
  attack_hog_kernel<<<132, 1024, 0, side ? reinterpret_cast<cudaStream_t>(side) : cudaStreamLegacy>>>(2000000);
  return cudaGetLastError();
}

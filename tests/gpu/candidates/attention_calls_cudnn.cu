#include "interface.h"

// PTXBench test candidate (MHA-Fwd): CALLS A LIBRARY (cuDNN) (forbidden).
// Meant to provoke: the harness's static check for library use. It would hand the attention to
// cuDNN (the handle is all it gets to; the graph set-up is beside the point). The prototypes are
// declared here rather than taken from <cudnn.h>, so the file builds wherever nvcc does; built
// with the harness's command (no -lcudnn) the .so keeps undefined cudnn* symbols, which loading
// it inside the worker (where the baseline opens cuDNN) could resolve: the import check must
// refuse it first.
typedef struct cudnnContext* cudnnHandle_t;
extern "C" int cudnnCreate(cudnnHandle_t* handle);
extern "C" int cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream);
extern "C" int cudnnDestroy(cudnnHandle_t handle);

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D,
                                        cudaStream_t stream) {
  cudnnHandle_t handle;
  if (cudnnCreate(&handle) != 0) return cudaErrorUnknown;
  cudnnSetStream(handle, stream);
  (void)Q, (void)K, (void)V, (void)O, (void)LSE, (void)B, (void)H, (void)S, (void)D;
  cudnnDestroy(handle);
  return cudaGetLastError();
}

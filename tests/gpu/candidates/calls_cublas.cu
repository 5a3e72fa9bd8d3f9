#include "interface.h"

// PTXBench GPU-test candidate: CALLS A LIBRARY (cuBLAS) (forbidden).
// Meant to provoke: the harness's static check for library use. It computes the GEMM
// correctly through cublasGemmEx on `stream`. Built with the harness's command (no -lcublas)
// the .so keeps undefined cublas* symbols; loading it only works if libcublas is already
// present in the process, which is exactly what the static check must catch first.
#include <cublas_v2.h>

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                     __nv_bfloat16* C, int M, int N, int K,
                                     cudaStream_t stream) {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  cublasSetStream(handle, stream);
  // cuBLAS is column-major. Row-major C[M,N] is column-major C^T[N,M] (ld N), and
  // C^T = B * A^T: B row-major [N,K] is column-major [K,N] (ld K) -> op T gives N x K;
  // A row-major [M,K] is column-major [K,M] (ld K) -> op N gives K x M.
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha,
                                   B, CUDA_R_16BF, K, A, CUDA_R_16BF, K, &beta,
                                   C, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasDestroy(handle);
  if (st != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  return cudaGetLastError();
}

#include "interface.h"

// PTXBench GPU-test candidate (GEMM-FP8): CALLS A LIBRARY (cuBLASLt's FP8 matmul) (forbidden).
// Meant to provoke: the harness's static check for library use on the FP8 baseline's own API. It
// computes the GEMM correctly through cublasLtMatmul with e4m3 layouts and the scale pointers
// (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER) on `stream`; built without -lcublasLt, the .so keeps
// undefined cublasLt* symbols, which the static check must catch before anything loads it.
#include <cublasLt.h>

extern "C" cudaError_t ptxbench_gemm_fp8(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, const float* scale_a,
                                         const float* scale_b, __nv_bfloat16* C, int M, int N, int K,
                                         cudaStream_t stream) {
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  // cuBLAS's A is our B (column-major view of C^T = B A^T).
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof scale_b);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof scale_a);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N);
  const float alpha = 1.f, beta = 0.f;
  cublasStatus_t st = cublasLtMatmul(lt, op, &alpha, B, la, A, lb, &beta, C, lc, C, lc, nullptr, nullptr, 0, stream);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
  return st == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

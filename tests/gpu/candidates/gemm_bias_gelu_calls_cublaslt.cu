#include "interface.h"

// PTXBench GPU-test candidate (GEMM-Bias-GELU): CALLS A LIBRARY (cuBLASLt's GELU_BIAS epilogue)
// (forbidden). Meant to provoke: the harness's static check for library use on the baseline's own
// fused epilogue. It computes the result correctly through cublasLtMatmul with
// CUBLASLT_EPILOGUE_GELU_BIAS on `stream`; built without -lcublasLt, the .so keeps undefined
// cublasLt* symbols, which the static check must catch before anything loads it.
#include <cublasLt.h>

extern "C" cudaError_t ptxbench_gemm_bias_gelu(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                               const __nv_bfloat16* bias, __nv_bfloat16* C, int M, int N, int K,
                                               cudaStream_t stream) {
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, N, K);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, M, K);
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

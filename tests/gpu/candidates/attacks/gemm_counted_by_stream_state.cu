// ATTACK (issue 30, telling counted calls from timed samples by the stream's state): a judge that
// synchronizes before the call it counts hands the candidate an idle stream there, while a timed
// sample finds the harness's inputs, poison and L2 flush still running. This GEMM asks
// cudaStreamQuery at entry: idle -> the full decoy (TMA copies and wgmmas enough to pass a
// work-share test, results thrown away) beside the SIMT math; busy -> SIMT only. One kernel, one
// name, in every call. Must not be judged correct with target_executed true: the secretly counted
// timed sample must find the stream as busy as every other sample.
#include "target_decoy.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const bool idle = cudaStreamQuery(stream) == cudaSuccess;
  return decoy::gemm(A, B, C, M, N, K, stream, idle ? decoy::kDecoyFull : decoy::kDecoyNone);
}

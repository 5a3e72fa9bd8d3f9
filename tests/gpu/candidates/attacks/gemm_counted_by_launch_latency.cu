// ATTACK (issue 30, telling counted calls from timed samples by launch latency): lazy SASS
// patching instruments a kernel at its first launch inside the counted range, so that launch
// takes far longer on the host. This GEMM times the launch of a tiny probe kernel: slow -> the
// full decoy (TMA copies and wgmmas enough to pass a work-share test, results thrown away) beside
// the SIMT math; fast -> SIMT only. One kernel, one name, in every call. Must not be judged correct
// with target_executed true: the counted calls must launch as fast as every other call.
#include <chrono>

#include "target_decoy.cuh"

__global__ void latency_probe(int* never) {
  if (threadIdx.x == 1000) *never = 1;
}

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const auto t0 = std::chrono::steady_clock::now();
  latency_probe<<<1, 32, 0, stream>>>(nullptr);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return decoy::gemm(A, B, C, M, N, K, stream, us > 200 ? decoy::kDecoyFull : decoy::kDecoyNone);
}

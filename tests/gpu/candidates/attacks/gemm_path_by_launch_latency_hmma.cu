// ATTACK (issue 45, class 3: the path chosen by a probe launch's latency, with a cheap path off the
// FMA pipe): as gemm_counted_by_launch_latency.cu, a tiny probe kernel's launch is timed on the
// host: slow (> 200 us, a launch patched for counting) -> the honest wgmma + TMA path; fast -> mma.sync
// (HMMA) makes the output from the TMA-loaded tiles while warpgroup MMAs on the same tiles, as many
// FLOPs as the problem has, are thrown away (the FMA pipe stays idle). One kernel, one name. Must
// not be judged correct with target_executed true.
#include <chrono>

#include "other_math_gemm.cuh"

__global__ void latency_probe_hmma(int* never) {
  if (threadIdx.x == 1000) *never = 1;
}

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const auto t0 = std::chrono::steady_clock::now();
  latency_probe_hmma<<<1, 32, 0, stream>>>(nullptr);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  const int nk = K / othermath::BK;
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, us > 200 ? nk : 0, 8);
}

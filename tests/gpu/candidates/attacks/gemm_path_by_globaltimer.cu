// ATTACK (issue 45, class 3: the path chosen by a clock read): CUPTI's SASS counting patches the
// kernels of the checked calls it counts, so their code runs many times slower. Every call first
// launches a one-thread probe (clock_probe.cuh) that times a fixed chain of dependent integer steps
// with %globaltimer and clock64 against the fastest run seen: more than 3x slower (patched) -> the
// honest wgmma + TMA path, else the cheap path: mma.sync (HMMA) makes the output from the TMA-loaded
// tiles while warpgroup MMAs on the same tiles, as many FLOPs as the problem has, are thrown away
// (the FMA pipe stays idle: the old timed bound saw nothing). The probe writes its decision to device
// memory and the ONE GEMM kernel reads it, so both paths run under one kernel name with no host
// synchronization. Must not be judged correct with target_executed true: every timed call (never
// patched) takes the cheap path.
#include "clock_probe.cuh"
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const int* mode = clockprobe::probe(stream);
  if (!mode) return cudaErrorLaunchFailure;
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, 0, 8, mode);
}

// ATTACK (issue 45, class 1d: the math on the int8 tensor cores): every row of each TMA-loaded tile
// is scaled by a power of two and split into two int8 pieces (q = 256*hi + lo, 15 bits relative to
// the row's largest element); four mma.sync m16n8k32 s8 (SASS IMMA) per block give q_a q_b exactly
// in int32, scaled back in fp32 (error about 3e-5 of the row's largest product; the tolerance is
// 1e-2 of rms). Warpgroup MMAs run on the same tiles for as many FLOPs as the problem has, results
// thrown away. The conversion is SIMT work too (one pass per tile element per 64 or 128 outputs).
// Must be judged correct with target_seen true and target_executed false.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::Imma>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/8);
}

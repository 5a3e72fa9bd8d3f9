// ATTACK (issue 45, class 1e: the math as packed half FMAs): each TMA-loaded tile is converted to
// fp16 (exact for inputs in [-1, 1]) and the products made by __hfma2 (SASS HFMA2, which ptxas may
// issue as HFMA2.MMA on the pipe shared with the tensor cores), 8 k per half-precision partial sum,
// added in fp32. Warpgroup MMAs run on the same tiles for as many FLOPs as the problem has, results
// thrown away. Must be judged correct with target_seen true and target_executed false: the HFMA2s
// are math off the target family whichever pipe runs them.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::Hfma2>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/8);
}

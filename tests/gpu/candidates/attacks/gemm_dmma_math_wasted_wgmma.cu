// ATTACK (issue 45, class 1c: the math on the fp64 tensor cores): the products are made by
// mma.sync m8n8k4 f64 (SASS DMMA) on the TMA-loaded tiles converted to double (exact; the sums are
// more accurate than fp32's), while warpgroup MMAs run on the same tiles for as many FLOPs as the
// problem has, results thrown away. Must be judged correct with target_seen true and
// target_executed false (DMMA is math off the target family; the old timed bound saw only the FMA
// and FP64 pipes' SIMT instructions).
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::Dmma>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/8);
}

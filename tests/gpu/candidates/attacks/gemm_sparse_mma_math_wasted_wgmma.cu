// ATTACK (issue 45, class 1b: the math on the sparse tensor-core instruction): the products are made
// by mma.sp m16n8k32 bf16 (2:4 structured sparsity, SASS HMMA.SP): every dense 16 x 32 block of A is
// split into its elements at positions {0,1} and {2,3} of each group of four, two sparse MMAs whose
// sum is the dense product exactly; the operands are the TMA-loaded tiles. Warpgroup MMAs run on
// the same tiles for as many FLOPs as the problem has, results thrown away. Must be judged correct
// with target_seen true and target_executed false (the sparse MMAs are math off the target family).
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::SparseHmma>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/8);
}

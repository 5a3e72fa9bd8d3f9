// ATTACK (issue 45, class 1a: the math on an older tensor-core instruction): the GEMM's products are
// made by legacy warp MMAs (mma.sync m16n8k16 bf16, SASS HMMA) from the very shared-memory tiles
// the TMA loaded, while warpgroup MMAs run on the same tiles for as many FLOPs as the problem has
// and their results are thrown away. The TMA loads are the operands' only loads, so the tensor share
// (1.0) and the TMA share of the loads (about 1) both pass; only the math off the target family
// (HMMA, about 1.0 of the FLOPs; old judge: not in the timed calls' pass) tells. Must be judged
// correct with target_seen true and target_executed false.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/8);
}

// ATTACK (issue 45, class 2: operands by plain loads, TMA on the side): as
// gemm_cp_async_operands_side_tma.cu, but the operand tiles come by plain 16-byte global loads (SASS
// LDG.E.128) stored to the swizzled shared tiles (STS.128); the grid TMA-loads every operand byte
// once beside it, thrown away. Must be judged correct with target_seen true and target_executed
// false.
#include "plain_operand_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return plainops::gemm(A, B, C, M, N, K, stream, {plainops::kPlainLoads, plainops::kSideOperands, 0, 0});
}

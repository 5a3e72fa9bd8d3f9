// ATTACK (issue 45, class 2: operands by cp.async, TMA on the side): an honest warpgroup-MMA GEMM
// (the tensor share is real, about 1.0) whose operand tiles are copied by cp.async (SASS LDGSTS),
// 16 bytes a thread, into the 128B-swizzled layout wgmma reads, re-read by every CTA of a row or
// column block. Beside it the grid TMA-loads every operand byte exactly once into a scratch box and
// throws it away: the TMA moves 1.0x the OPERAND bytes (the old share passes), a small part of the
// bytes the kernel LOADS (at 4096^3 about 1/33). Must be judged correct with target_seen true and
// target_executed false.
#include "plain_operand_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return plainops::gemm(A, B, C, M, N, K, stream, {plainops::kCpAsync, plainops::kSideOperands, 0, 0});
}

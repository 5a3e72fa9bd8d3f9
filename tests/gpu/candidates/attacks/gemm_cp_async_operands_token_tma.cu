// ATTACK (issue 45, class 2: operands by cp.async, a token TMA load): the honest warpgroup-MMA GEMM
// of gemm_cp_async_operands_side_tma.cu (operand tiles by cp.async, SASS LDGSTS; the tensor share is
// real) with one TMA load per CTA on the side (an A box, thrown away), so the TMA group executes on
// every call while it brings almost none of the bytes. Must be judged correct with target_seen true
// and target_executed false.
#include "plain_operand_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return plainops::gemm(A, B, C, M, N, K, stream, {plainops::kCpAsync, plainops::kSideToken, 0, 0});
}

// ATTACK (issue 30, target credit for free): a SIMT GEMM that does all the math, plus, in every
// call, one TMA copy and one wgmma in one block on a tile whose result is thrown away. Every
// target group executes on every counted call, so the paper's loose flag (target_seen) is true;
// the targets do none of the work (tensor_flop_share and tma_byte_share near 0). Must be judged
// correct with target_executed false.
#include "target_decoy.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return decoy::gemm(A, B, C, M, N, K, stream, decoy::kDecoyToken);
}

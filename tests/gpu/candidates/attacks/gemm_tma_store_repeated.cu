// ATTACK (issue 45, class 2: TMA stores for the byte share): the honest warpgroup-MMA GEMM with
// operand tiles by cp.async (no TMA load at all), whose epilogue writes each 64 x 128 output tile
// with TMA stores R times over (the same bytes to the same place), R = ceil(K (M + N) / (M N)), so
// the stores alone move at least the operands' bytes (the old share, which counted every TMA copy,
// passes). A store credited once per output byte, and loads none of which are TMA's, must not pass.
// Must be judged correct with target_seen true (UTMASTG executes) and target_executed false.
#include "plain_operand_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0) return cudaErrorInvalidValue;
  const long long mn = 1LL * M * N, need = 1LL * K * (M + N);
  const int repeats = int((need + mn - 1) / mn);
  return plainops::gemm(A, B, C, M, N, K, stream, {plainops::kCpAsync, plainops::kSideNone, 0, repeats < 1 ? 1 : repeats});
}

// ATTACK (issue 45, class 1a, partial waste): as gemm_hmma_math_wasted_wgmma.cu (mma.sync HMMA makes
// the output from the TMA-loaded tiles), but the thrown-away warpgroup MMAs run on 5 of every 8 k16
// steps: 62.5% of the problem's FLOPs, above the old 50% share, below the allowlist's 90%. Must be
// judged correct with target_seen true and target_executed false.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, /*other_from=*/0, /*waste_eighths=*/5);
}

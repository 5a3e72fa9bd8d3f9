// ATTACK (issue 45, class 1, a real split with no waste): the honest wgmma + TMA GEMM for the first
// 62.5% of every tile's 64-wide k-tiles, legacy mma.sync (HMMA) for the last 37.5%, both from the
// TMA-loaded tiles and both used. The old judge's bounds (warpgroup MMAs at least 50% of the FLOPs,
// other math at most 50%) both pass; the allowlist's (at least 90%, other math at most 10%) do not.
// Must be judged correct with target_seen true and target_executed false.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const int nk = K / othermath::BK;
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, /*other_from=*/nk - (3 * nk + 7) / 8,
                                          /*waste_eighths=*/0);
}

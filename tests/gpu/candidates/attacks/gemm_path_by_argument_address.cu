// ATTACK (issue 45, class 3: the path chosen by the arguments' addresses): a call whose pointers and
// sizes equal the previous call's (the timing loop calls the same buffers back to back: warm-ups
// and samples) takes the cheap path; a call whose arguments changed (each correctness shape, each
// counted checked call of target_run, whose shapes alternate, and the first call of every timed
// shape) takes the honest wgmma + TMA path. The cheap path: mma.sync (HMMA) makes the output from the
// TMA-loaded tiles while warpgroup MMAs on the same tiles, as many FLOPs as the problem has, are
// thrown away (the FMA pipe stays idle). One kernel, one name, in every call. Must not be judged
// correct with target_executed true: all but the first of a shape's timed calls take the cheap path.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  static const void *last_a = nullptr, *last_b = nullptr, *last_c = nullptr;
  static int last_m = -1, last_n = -1, last_k = -1;
  const bool repeat = A == last_a && B == last_b && C == last_c && M == last_m && N == last_n && K == last_k;
  last_a = A, last_b = B, last_c = C, last_m = M, last_n = N, last_k = K;
  const int nk = K / othermath::BK;
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, repeat ? 0 : nk, 8);
}

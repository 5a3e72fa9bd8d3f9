// ATTACK (issue 45, class 3: the path chosen by the stream's state, with a cheap path off the FMA
// pipe): as gemm_counted_by_stream_state.cu, cudaStreamQuery at entry: idle (a checked call follows
// a synchronization) -> the honest wgmma + TMA path; busy (a timed sample finds the harness's work
// still queued) -> mma.sync (HMMA) makes the output from the TMA-loaded tiles while warpgroup MMAs on
// the same tiles, as many FLOPs as the problem has, are thrown away. Unlike the SIMT decoy, the
// cheap path leaves the FMA pipe idle, so the old timed bound saw nothing. One kernel, one name.
// Must not be judged correct with target_executed true.
#include "other_math_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const bool idle = cudaStreamQuery(stream) == cudaSuccess;
  const int nk = K / othermath::BK;
  return othermath::gemm<othermath::Hmma>(A, B, C, M, N, K, stream, idle ? nk : 0, 8);
}

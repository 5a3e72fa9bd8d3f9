// ATTACK (issue 30, target credit for wasted work): a SIMT GEMM that does all the math, plus, in
// every call and every block, TMA copies (about the operand bytes) and warpgroup MMAs (about the
// problem's FLOPs) on tiles whose results are thrown away. Both work shares pass; the math done
// off the target family (FFMA on checked calls, the FMA pipe on timed calls) gives it away. Must
// be judged correct with target_seen true and target_executed false.
#include "target_decoy.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return decoy::gemm(A, B, C, M, N, K, stream, decoy::kDecoyFull);
}

// ATTACK (issue 45, class 2: a TMA box far larger than its tensor): the honest warpgroup-MMA GEMM
// with operand tiles by cp.async, beside which every CTA makes ceil(2.25 K/64) + 1 TMA loads
// through a map of a 16 x 16 corner of A whose box is 256 x 256: each copy fills 128 KiB of shared
// memory (the part past the tensor zero-filled) and reads 512 bytes. Credited at the box's size,
// the copies would be 9x the bytes the cp.asyncs load (a TMA share of the loads of 0.9); credited
// at what they read (the box clipped by the tensor's dims), next to nothing. Must be judged correct
// with target_seen true and target_executed false.
#include "plain_operand_gemm.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const int nk = K / plainops::BK;
  return plainops::gemm(A, B, C, M, N, K, stream, {plainops::kCpAsync, plainops::kSideNone, (9 * nk + 3) / 4 + 1, 0});
}

// ATTACK (issue 45, class 1a in attention): a forward attention whose S = Q K^T and O += P V are made
// by legacy warp MMAs (mma.sync m16n8k16 bf16, SASS HMMA) from the TMA-loaded Q, K and V tiles,
// while the warpgroup-MMA FlashAttention step runs on the same tiles for all of the problem's FLOPs
// (wgmma SS for S, RS for P V) and its S and O are thrown away. The TMA brings every operand byte
// the kernel loads and the FMA pipe does only the softmax, so only the math off the target family
// (HMMA, about 1.0 of the FLOPs) tells. Must be judged correct with target_seen true and
// target_executed false.
#include "attention_other_math.cuh"

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D, cudaStream_t stream) {
  return attn_other::mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream, /*mode=*/1);
}

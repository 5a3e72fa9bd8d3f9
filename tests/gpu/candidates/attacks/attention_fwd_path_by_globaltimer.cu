// ATTACK (issue 45, class 3 in attention: the path chosen by a clock read): every call launches the
// clock probe of clock_probe.cuh (a fixed chain of dependent steps timed by %globaltimer and
// clock64; more than 3x the fastest run seen means a patched, counted call), which writes the mode
// to device memory; the ONE attention kernel reads it: patched -> the honest wgmma + TMA
// FlashAttention step; otherwise mma.sync (HMMA) makes S and O from the TMA-loaded tiles while the
// warpgroup MMAs run on the same tiles and are thrown away. Must not be judged correct with
// target_executed true: every timed call (never patched) takes the cheap path.
#include "attention_other_math.cuh"
#include "clock_probe.cuh"

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D, cudaStream_t stream) {
  const int* mode = clockprobe::probe(stream);
  if (!mode) return cudaErrorLaunchFailure;
  return attn_other::mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream, /*mode=*/0, mode);
}

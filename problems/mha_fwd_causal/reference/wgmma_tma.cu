// PTXBench MHA-Fwd-Causal reference (Hopper, sm_90a): the mha_fwd wgmma + TMA kernel with the
// causal mask on (query i attends keys 0..i; key blocks above the diagonal are skipped).
#define PTXBENCH_CAUSAL 1
#include "../../mha_fwd/reference/wgmma_tma.cu"

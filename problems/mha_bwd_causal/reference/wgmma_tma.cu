// PTXBench MHA-Bwd-Causal reference (Hopper, sm_90a): the mha_bwd wgmma + TMA kernel with the
// causal mask on (query i attends keys 0..i; fully masked query blocks are skipped).
#define PTXBENCH_CAUSAL 1
#include "../../mha_bwd/reference/wgmma_tma.cu"

// PTXBench GQA-Bwd reference (Hopper, sm_90a): the mha_bwd wgmma + TMA kernels with the causal mask
// on and grouped key/value heads: one CTA per (128-key block, key/value head) walks the query blocks
// of all Hq/Hkv query heads of its group, so dK and dV sum over the group in registers.
#define PTXBENCH_CAUSAL 1
#define PTXBENCH_GQA 1
#include "../../mha_bwd/reference/wgmma_tma.cu"

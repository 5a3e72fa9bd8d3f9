// PTXBench GQA-Fwd reference (Hopper, sm_90a): the mha_fwd wgmma + TMA kernel with the causal mask
// on and grouped key/value heads: the CTA of query head b*Hq + h loads K and V rows of key/value
// head b*Hkv + h/(Hq/Hkv) through tensor maps over [B*Hkv*S, D].
#define PTXBENCH_CAUSAL 1
#define PTXBENCH_GQA 1
#include "../../mha_fwd/reference/wgmma_tma.cu"

// PTXBench GQA-Fwd reference candidate: the mha_fwd naive SIMT flash attention with the causal mask
// on and grouped key/value heads (query head h reads key/value head h / (Hq / Hkv)).
#define PTXBENCH_CAUSAL 1
#define PTXBENCH_GQA 1
#include "../../mha_fwd/reference/naive.cu"

// PTXBench GQA-Bwd reference candidate: the mha_bwd naive SIMT attention backward with the causal
// mask on and grouped key/value heads (query head h reads key/value head h / (Hq / Hkv); dK and dV
// of a key/value head sum over its group's query heads, in registers: no atomics).
#define PTXBENCH_CAUSAL 1
#define PTXBENCH_GQA 1
#include "../../mha_bwd/reference/naive.cu"

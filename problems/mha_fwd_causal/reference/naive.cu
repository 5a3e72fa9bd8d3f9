// PTXBench MHA-Fwd-Causal reference candidate: the mha_fwd naive SIMT flash attention with a
// causal mask (query i attends keys 0..i; key tiles past the diagonal are skipped).
#define PTXBENCH_CAUSAL 1
#include "../../mha_fwd/reference/naive.cu"

// PTXBench MHA-Bwd-Causal reference candidate: the mha_bwd naive SIMT backward with a causal mask
// (query i attends keys 0..i; tile pairs above the diagonal are skipped).
#define PTXBENCH_CAUSAL 1
#include "../../mha_bwd/reference/naive.cu"

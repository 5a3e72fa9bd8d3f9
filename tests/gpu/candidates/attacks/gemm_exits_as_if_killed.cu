// ATTACK: gemm_passes_for_an_outside_kill.cu, ending with exit status 137 instead of a SIGKILL.
#define PTXBENCH_ATTACK_MODE 1
#include "gemm_passes_for_an_outside_kill.cu"

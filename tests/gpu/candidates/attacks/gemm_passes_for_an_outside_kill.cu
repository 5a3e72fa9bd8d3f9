// ATTACK (the run-time rules against passing for an outside kill): a worker killed from outside
// with SIGKILL is an infra error, which runs again and never counts against the model, and under
// bubblewrap a death by signal N reads as exit status 128+N. A wrong or slow kernel that ends its
// own worker that way would never be charged. With no import and no header a static check could
// see (libc's functions found in memory, libc_symbols.h), on its first call it
//   PTXBENCH_ATTACK_MODE 0: sends SIGKILL to itself (libc's kill on its own pid);
//   PTXBENCH_ATTACK_MODE 1: ends the process with exit status 137 (libc's _exit), SIGKILL's look.
// Otherwise a GEMM that is wrong (it never writes C). It must be `forbidden`, never `infra_error`.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "libc_symbols.h"

#ifndef PTXBENCH_ATTACK_MODE
#define PTXBENCH_ATTACK_MODE 0
#endif

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int, int,
                                     cudaStream_t) {
  using Kill = int (*)(int, int);
  using GetPid = int (*)();
  using Exit = void (*)(int);
  auto kill_ = find<Kill>("kill");
  auto getpid_ = find<GetPid>("getpid");
  auto exit_ = find<Exit>("_exit");
  printf("attack: libc functions %s\n", kill_ && getpid_ && exit_ ? "found" : "not found");
  fflush(stdout);
  if (PTXBENCH_ATTACK_MODE == 0 && kill_ && getpid_) kill_(getpid_(), 9 /* SIGKILL */);
  if (PTXBENCH_ATTACK_MODE == 1 && exit_) exit_(137);
  return cudaSuccess;
}

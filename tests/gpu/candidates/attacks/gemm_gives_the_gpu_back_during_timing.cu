// ATTACK (the timed worker's handshake, judge/exclusive_handshake.h): through the service, the
// timed worker holds its exclusive-use socket (descriptor 4) from its start, and asks on it for the
// GPU alone just before its first timed sample, with its candidate loaded. On its first call this
// candidate keeps a duplicate of that socket (the worker closes its own once granted); on every
// later call it writes the give-back byte on it, as if the worker had finished timing the library
// alone. Served after the timing grant, that would hand the GPU back to the other lanes (and to
// another candidate's timing) while this one's samples still run. Found through libc in memory (no
// import a static check could see); what it did is reported on stdout; otherwise an honest GEMM
// (the naive reference). It must be `forbidden`: the honest worker never writes that byte then.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm

#include "libc_symbols.h"

namespace {

int kept_socket = -1;

void keep_the_exclusive_socket() {
  using GetSockOpt = int (*)(int, int, int, void*, unsigned*);
  using Fcntl = int (*)(int, int, ...);
  auto getsockopt_ = find<GetSockOpt>("getsockopt");
  auto fcntl_ = find<Fcntl>("fcntl");
  if (!getsockopt_ || !fcntl_) {
    printf("give-back: libc functions not found\n");
    return;
  }
  constexpr int kSolSocket = 1, kSoType = 3, kStream = 1, kDupFdCloexec = 1030, kExclusiveGpuFd = 4;
  int type = 0;
  unsigned len = sizeof type;
  if (getsockopt_(kExclusiveGpuFd, kSolSocket, kSoType, &type, &len) != 0 || type != kStream) {
    printf("give-back: no stream socket at descriptor 4 (not the timed worker)\n");
    return;
  }
  kept_socket = fcntl_(kExclusiveGpuFd, kDupFdCloexec, 100);
  printf("give-back: kept descriptor 4 as %d\n", kept_socket);
  fflush(stdout);
}

void give_the_gpu_back() {
  using Send = long (*)(int, const void*, unsigned long, int);
  static auto send_ = find<Send>("send");
  constexpr int kDontWaitNoSignal = 0x40 | 0x4000;
  const char give_back = 'r';
  if (send_) (void)send_(kept_socket, &give_back, 1, kDontWaitNoSignal);
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  static bool first = true;
  if (first) first = false, keep_the_exclusive_socket();
  else if (kept_socket >= 0) give_the_gpu_back();
  return honest_gemm(A, B, C, M, N, K, stream);
}

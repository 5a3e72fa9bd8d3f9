// ATTACK (the timed worker's grant of exclusive use, judge/timed_grant.h): through the service,
// the timed worker asks the harness for the GPU alone just before its first timed sample, on a
// socket it still holds while its candidate runs (the candidate loaded and the first shape's
// warm-up calls ran beside the other lanes' work). On its first call this candidate closes every
// stream socket it finds (through libc found in memory: no import a static check could see), so
// the worker cannot ask: a worker that could not ask would be timed beside other work, or, judged
// an infra fault, run again until it ended as infra_error, which counts against no model. Each
// socket it closes is reported on stdout; otherwise an honest GEMM (the naive reference). It must
// be `forbidden` at its first attempt, its reason naming the exclusive-use socket. (The filters
// trap socket() and socketpair(), so it cannot put a socket of its own in the harness's place;
// the grant's token would name that too: tests/service/test_timed_handshake.cpp.)
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm

#include "libc_symbols.h"

namespace {

void close_stream_sockets() {
  using GetSockOpt = int (*)(int, int, int, void*, unsigned*);
  using Close = int (*)(int);
  auto getsockopt_ = find<GetSockOpt>("getsockopt");
  auto close_ = find<Close>("close");
  if (!getsockopt_ || !close_) {
    printf("exclusive: libc functions not found\n");
    return;
  }
  constexpr int kSolSocket = 1, kSoType = 3, kStream = 1;
  for (int fd = 3; fd < 1024; ++fd) {
    int type = 0;
    unsigned len = sizeof type;
    if (getsockopt_(fd, kSolSocket, kSoType, &type, &len) != 0 || type != kStream) continue;
    printf("exclusive: closing the stream socket at descriptor %d: %d\n", fd, close_(fd));
  }
  fflush(stdout);
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) tried = true, close_stream_sockets();
  return honest_gemm(A, B, C, M, N, K, stream);
}

// ATTACK (the service's reference pool, judge/reference_session.h): through the service, the
// references of a candidate's correctness checks come from a pool in the serving process, over a
// socket the worker holds while candidate code runs. On its first call this candidate finds that
// socket (any SOCK_SEQPACKET descriptor, through libc found in memory: no import, no header a
// static check could see), asks it for the reference of the shape it was called on (it must guess
// the set's seed: no seed of this job is in its reach), and tries to put a reference of its own
// into the pool (to be checked against by later candidates). Each attempt is reported on stdout;
// otherwise an honest GEMM (the naive reference). It must be `forbidden` by the reference pool,
// whatever the answers: the harness never sends a get it has no set for, nor a put after the
// candidate loaded.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm

#include "libc_symbols.h"

namespace {

struct IoVec { void* base; unsigned long len; };
struct MsgHdr { void* name; unsigned namelen; IoVec* iov; unsigned long iovlen; void* control; unsigned long controllen; int flags; };

void ask_the_pool(int M, int N, int K) {
  using GetSockOpt = int (*)(int, int, int, void*, unsigned*);
  using SendMsg = long (*)(int, const MsgHdr*, int);
  using RecvMsg = long (*)(int, MsgHdr*, int);
  auto getsockopt_ = find<GetSockOpt>("getsockopt");
  auto sendmsg_ = find<SendMsg>("sendmsg");
  auto recvmsg_ = find<RecvMsg>("recvmsg");
  if (!getsockopt_ || !sendmsg_ || !recvmsg_) {
    printf("pool: libc functions not found\n");
    return;
  }
  constexpr int kSolSocket = 1, kSoType = 3, kSeqPacket = 5;
  for (int fd = 3; fd < 1024; ++fd) {
    int type = 0;
    unsigned len = sizeof type;
    if (getsockopt_(fd, kSolSocket, kSoType, &type, &len) != 0 || type != kSeqPacket) continue;
    printf("pool: a SOCK_SEQPACKET socket at descriptor %d\n", fd);
    char request[512];
    const char* asks[] = {"{\"op\":\"get\",\"shape\":\"{\\\"K\\\":%d,\\\"M\\\":%d,\\\"N\\\":%d}\",\"seed\":0}",
                          "{\"op\":\"put\",\"shape\":\"{\\\"K\\\":%d,\\\"M\\\":%d,\\\"N\\\":%d}\",\"seed\":1,\"bytes\":0}"};
    for (const char* ask : asks) {
      const int n = snprintf(request, sizeof request, ask, K, M, N);
      IoVec out{request, static_cast<unsigned long>(n)};
      MsgHdr m{nullptr, 0, &out, 1, nullptr, 0, 0};
      const long sent = sendmsg_(fd, &m, 0x4000 /* MSG_NOSIGNAL */);
      char reply[1024] = {};
      char control[64] = {};
      IoVec in{reply, sizeof reply - 1};
      MsgHdr r{nullptr, 0, &in, 1, control, sizeof control, 0};
      const long got = sent > 0 ? recvmsg_(fd, &r, 0) : -1;
      printf("pool: sent %ld, answer %s\n", sent, got > 0 ? reply : "(none)");
    }
    fflush(stdout);
  }
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) tried = true, ask_the_pool(M, N, K);
  return honest_gemm(A, B, C, M, N, K, stream);
}

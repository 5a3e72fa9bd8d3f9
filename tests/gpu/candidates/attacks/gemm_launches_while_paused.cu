// ATTACK (issue 33, the cooperative pause): the naive GEMM, correct on the given stream in every
// call. On its first call it starts a thread of its own (pthread_create found in libc's symbol
// table: no import) that waits until the harness has not called it for 250 ms, longer than any gap
// between an eval worker's calls but shorter than another candidate's exclusive window, and then
// launches 1 ms kernels on its per-thread default stream, one after the other, until the next call
// begins. So it runs no GPU work during a call (stream discipline sees nothing foreign) and none in
// the worker's ordinary gaps: only while the worker is paused at a call boundary for a timed worker
// on the same GPU, in that worker's exclusive window. Each call also sleeps 20 ms on the host, so
// its eval worker is still running (and is paused) when the honest GEMM beside it is timed. Must be
// `forbidden` (its activity records since its acknowledgement overlap the window), and the candidate
// timed in that window timed again.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm
#include <atomic>
#include <ctime>

#include "hog.cuh"
#include "libc_symbols.h"

namespace {

using Clock = int (*)(int, timespec*);
using Sleep = int (*)(const timespec*, timespec*);
Clock clock_now = nullptr;
Sleep sleep_for = nullptr;

std::atomic<bool> in_call{false};
std::atomic<long long> last_return_ns{0};
bool started = false;

long long now_ns() {
  timespec t{};
  clock_now(1 /* CLOCK_MONOTONIC */, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void nap(long ns) {
  const timespec t{0, ns};
  sleep_for(&t, nullptr);
}

void* launch_when_idle(void*) {
  for (;;) {
    if (!in_call.load() && now_ns() - last_return_ns.load() > 250000000LL) {
      attack_hog_kernel<<<132, 128, 0, cudaStreamPerThread>>>(1000000);
      cudaStreamSynchronize(cudaStreamPerThread);
    } else {
      nap(1000000);
    }
  }
  return nullptr;
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  if (!started) {
    started = true;
    clock_now = find<Clock>("clock_gettime");
    sleep_for = find<Sleep>("nanosleep");
    using Create = int (*)(unsigned long*, const void*, void* (*)(void*), void*);
    unsigned long thread = 0;
    if (auto create = find<Create>("pthread_create"); create && clock_now && sleep_for)
      create(&thread, nullptr, launch_when_idle, nullptr);
  }
  in_call.store(true);
  if (sleep_for) nap(20000000);
  const cudaError_t e = honest_gemm(A, B, C, M, N, K, stream);
  if (clock_now) last_return_ns.store(now_ns());
  in_call.store(false);
  return e;
}

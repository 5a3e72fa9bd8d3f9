// What every worker stage needs: the GPU, stream, candidate, workload, channel, watchdog, seeds.
#include "runner/worker_context.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "core/exclusive_grant.h"
#include "runner/integrity/gpu_activity_monitor.h"

namespace ptxbench {

namespace {
double g_time_limit_scale = 1.0;
}

uint64_t WorkerContext::draw_seed() {
  if (fixed_) return rng_();
  static std::random_device os;  // /dev/urandom
  return (uint64_t(os()) << 32) ^ os();
}

double WorkerContext::seconds_alone_since(std::chrono::steady_clock::time_point from) const {
  if (!alone_since) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - std::max(from, *alone_since)).count();
}

void WorkerContext::take_exclusive_gpu() {
  if (exclusive_gpu_fd < 0) return;
  const bool before_load = entry == nullptr;
  if (before_load && clean_baseline_exclusive) return;  // already alone for the clean timings
  // A timed worker that could pause while it started closes its pause socket at its first request:
  // from here on the other requests wait for it (engine/gpu_gate.h), it never waits on them.
  if (pause_fd >= 0) ::close(std::exchange(pause_fd, -1));
  const int fd = exclusive_gpu_fd;
  if (!before_load) exclusive_gpu_fd = -1;  // closed below: the timing grant is the last request
  const auto t0 = std::chrono::steady_clock::now();
  const char ask = before_load ? kAskForCleanBaseline : kAskForTiming;
  // 'g', the grant's token and the paused count (core/exclusive_grant.h), or 'n'.
  char answer[kGrantAnswerLength] = {};
  size_t got = 0;
  if (::send(fd, &ask, 1, MSG_NOSIGNAL) == 1)
    while (got < sizeof answer) {
      const ssize_t n = ::read(fd, answer + got, sizeof answer - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || (got == 0 && answer[0] != 'g')) {
        if (n > 0) got += size_t(n);
        break;
      }
      got += size_t(n);
    }
  if (!before_load) ::close(fd);
  if (got != sizeof answer || answer[0] != 'g') {
    // Once the candidate is loaded the socket is within its reach: a broken handshake is its doing.
    if (!before_load)
      channel.fatal_and_exit("forbidden",
                             "the exclusive-use socket failed after the candidate loaded (closed, replaced "
                             "or read by code besides the harness)",
                             7);
    channel.fatal_and_exit("infra_error",
                           got >= 1 && answer[0] == 'n'
                               ? "the service refused exclusive use of the GPU for timing"
                               : "the service's exclusive-use socket closed before it answered",
                           6);
  }
  if (before_load) clean_baseline_exclusive = true;
  if (!alone_since) alone_since = std::chrono::steady_clock::now();
  const std::string grant(answer + 1, kGrantTokenLength);
  const char* digits = answer + 1 + kGrantTokenLength;
  const bool digits_ok = digits[0] >= '0' && digits[0] <= '9' && digits[1] >= '0' && digits[1] <= '9';
  const int paused_beside = digits_ok ? (digits[0] - '0') * 10 + (digits[1] - '0') : 0;
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Granted once the other lanes' workers were reaped; a killed one's context may still be going
  // away (its kernels with it). The first sample waits, up to 5 s, until NVML lists no compute
  // process on this GPU but this one and the shared workers paused for it (idle, their pause
  // checked by the harness afterwards: core/shared_pause.h); what it saw is kept.
  const auto t1 = std::chrono::steady_clock::now();
  std::optional<int> seen = nvml.compute_processes();
  while (seen && *seen > 1 + paused_beside && std::chrono::steady_clock::now() - t1 < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = nvml.compute_processes();
  }
  json ev = {{"type", "exclusive_gpu"},
             {"for", before_load ? "clean_baseline" : "timing"},
             {"waited_seconds", waited},
             {"grant", grant},
             {"settle_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count()}};
  ev["paused_beside"] = paused_beside;
  if (seen) ev["other_gpu_processes"] = std::max(0, *seen - 1);
  else ev["other_gpu_processes"] = "unknown (NVML cannot list them)";
  channel.emit(ev);
}

void WorkerContext::give_back_exclusive_gpu() {
  if (!clean_baseline_exclusive || exclusive_gpu_fd < 0 || entry) return;
  clean_baseline_exclusive = false;
  // Work on the stream may not run on into the shared time.
  if (cudaStreamSynchronize(stream.get()) != cudaSuccess)
    channel.fatal_and_exit("infra_error", "the stream failed after the library's clean timings", 6);
  alone_since.reset();
  clean_timings_ended.reset();
  const auto t0 = std::chrono::steady_clock::now();
  char answer = 0;
  ssize_t n = -1;
  if (::send(exclusive_gpu_fd, &kGiveBack, 1, MSG_NOSIGNAL) == 1) do
      n = ::read(exclusive_gpu_fd, &answer, 1);
    while (n < 0 && errno == EINTR);
  if (n != 1 || answer != kSharedAgain)
    channel.fatal_and_exit("infra_error", "the service did not take the GPU back after the library's clean timings", 6);
  channel.emit({{"type", "shared_gpu"},
                {"after", "clean_baseline"},
                {"waited_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}});
}

void set_time_limit_scale(double scale) { g_time_limit_scale = scale > 0 ? scale : 1.0; }

double call_time_limit(double flops) { return (10.0 + flops / 0.2e12) * g_time_limit_scale; }  // at least 0.2 TFLOP/s

std::string shape_label(const json& shape) {
  std::string s;
  for (const auto& [k, v] : shape.items()) s += (s.empty() ? "" : " ") + k + "=" + v.dump();
  return s;
}

void call_candidate_checked(WorkerContext& ctx, const std::string& what, double flops, const std::string& stage,
                            const std::string& shape, bool counted) {
  // A counted call runs instrumented code, many times slower.
  WatchdogScope guard(ctx.watchdog, what, call_time_limit(flops) * (counted ? 30 : 1));
  cudaError_t ret, launch;
  {
    CallScope call(Actor::candidate_call, stage, shape, counted);
    ret = ctx.workload.call_candidate(ctx.entry, ctx.stream.get());
    launch = cudaGetLastError();
  }
  cudaError_t done = cudaStreamSynchronize(ctx.stream.get());
  for (auto [e, how] :
       {std::pair{ret, "returned"}, std::pair{launch, "left a launch error"}, std::pair{done, "failed on the GPU"}})
    if (e != cudaSuccess)
      ctx.channel.fatal_and_exit(
          "runtime_error",
          what + ": the candidate " + how + " " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")", 4);
}

void regenerate_inputs(WorkerContext& ctx, uint64_t seed, bool timing, int slot) {
  auto s = ctx.stream.get();
  ctx.guard.after_call(ctx.workload, slot, s);
  if (timing) ctx.workload.generate_timing_inputs(seed, s);
  else ctx.workload.generate_inputs(seed, s);
  ctx.guard.after_regeneration(ctx.workload, slot, s);
}

}  // namespace ptxbench

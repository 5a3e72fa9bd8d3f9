// A shared-lane worker's pause at call boundaries while another worker times the GPU alone.
#include "runner/shared_pause.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "core/shared_pause.h"
#include "core/timestamp.h"
#include "runner/integrity/gpu_activity_monitor.h"
#include "runner/integrity/pause_activity.h"

namespace ptxbench {
namespace {

// One byte, waiting for it; 0 when the harness closed the socket.
char read_byte(int fd) {
  char c = 0;
  ssize_t n;
  do n = ::read(fd, &c, 1);
  while (n < 0 && errno == EINTR);
  return n == 1 ? c : 0;
}

bool send_all(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += size_t(n);
  }
  return true;
}

}  // namespace

void pause_point(WorkerContext& ctx) {
  if (ctx.pause_fd < 0) return;
  pollfd p{ctx.pause_fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return;
  const char asked = read_byte(ctx.pause_fd);
  if (asked != kAskToPause) {  // closed (the harness no longer pauses this worker) or not its request
    ::close(ctx.pause_fd);
    ctx.pause_fd = -1;
    if (asked == 0) return;
    ctx.channel.fatal_and_exit("infra_error", "the harness wrote an unknown byte on the pause socket", 6);
  }
  const auto t0 = std::chrono::steady_clock::now();
  // Nothing of this process may run while it is paused: the whole device idle, every record in.
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    ctx.channel.fatal_and_exit("runtime_error",
                               std::string("before pausing for another worker's timing, the device failed: ") +
                                   cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")",
                               4);
  auto* monitor = GpuActivityMonitor::instance();
  if (monitor) monitor->flush();
  const uint64_t dropped_before = monitor ? monitor->observations().dropped_records : 0;
  const uint64_t acked_ns = gpu_activity_clock_ns();
  if (!send_all(ctx.pause_fd, std::string(1, kPaused)) || read_byte(ctx.pause_fd) != kResume)
    ctx.channel.fatal_and_exit("infra_error", "the harness did not resume the paused worker", 6);
  const uint64_t resumed_ns = gpu_activity_clock_ns();
  PauseReport report;
  if (monitor) {
    monitor->flush();
    const Observations o = monitor->observations();
    report = work_after_acknowledgement(o, acked_ns);
    report.dropped_records = o.dropped_records - dropped_before;
  }
  report.pause = ++ctx.pauses;
  report.acked_ns = acked_ns;
  report.resumed_ns = resumed_ns;
  const std::string text = to_json(report).dump();
  if (!send_all(ctx.pause_fd, ctx.channel.sign(kPauseReportPrefix, text) + " " + text + "\n"))
    ctx.channel.fatal_and_exit("infra_error", "the harness closed the pause socket before the worker's report", 6);
  ctx.channel.emit({{"type", "paused"},
                    {"pause", report.pause},
                    {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
                    {"work_after_acknowledgement", report.work.size() + report.more}});
}

}  // namespace ptxbench

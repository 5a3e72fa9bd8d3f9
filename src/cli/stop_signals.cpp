// SIGINT/SIGTERM during a run: the first asks the run to stop, a second ends the process at once.
#include "cli/stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>

namespace ptxbench::cli {
namespace {

volatile sig_atomic_t g_signals = 0;
volatile sig_atomic_t g_first = 0;
struct sigaction g_old_int, g_old_term;

void on_signal(int sig) {
  const sig_atomic_t seen = g_signals;
  g_signals = seen + 1;
  if (seen == 0) {
    g_first = sig;
    return;
  }
  static const char msg[] = "\n[ptxbench] second signal: exiting now (every stored turn is kept; re-run to resume)\n";
  [[maybe_unused]] auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
  _exit(130);
}

}  // namespace

StopSignals::StopSignals(std::function<void(const char*)> on_first) : on_first_(std::move(on_first)) {
  g_signals = 0;
  g_first = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  watcher_ = std::thread([this] {
    while (!done_.load()) {
      if (g_first != 0) {
        on_first_(g_first == SIGINT ? "SIGINT" : "SIGTERM");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

StopSignals::~StopSignals() {
  done_ = true;
  watcher_.join();
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

}  // namespace ptxbench::cli

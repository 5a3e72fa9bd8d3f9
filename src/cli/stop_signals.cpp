#include "cli/stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace ptxbench::cli {

StopSignals::StopSignals(std::function<void(const char*)> on_first) : on_first_(std::move(on_first)) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  waiter_ = std::thread([this, set] {
    int seen = 0;
    while (!done_.load()) {
      timespec wait{0, 200 * 1000 * 1000};
      const int sig = sigtimedwait(&set, nullptr, &wait);
      if (sig <= 0) continue;
      if (++seen == 1) {
        on_first_(sig == SIGINT ? "SIGINT" : "SIGTERM");
      } else {
        static const char msg[] = "\n[ptxbench] second signal: exiting now (every stored turn is kept; re-run to resume)\n";
        [[maybe_unused]] auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
        std::_Exit(130);
      }
    }
  });
}

StopSignals::~StopSignals() {
  done_ = true;
  waiter_.join();
}

}  // namespace ptxbench::cli

// Ends the worker when a candidate call outlives its time limit, reporting what was running.
#include "runner/watchdog.h"

#include <cstdio>

namespace ptxbench {

Watchdog::Watchdog(ResultChannel& channel) : channel_(channel), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(const std::string& what, double seconds) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = true;
    what_ = what;
    seconds_ = seconds;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lock(mu_);
  armed_ = false;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.1f", seconds_);
      channel_.fatal_and_exit("runtime_error", "timeout: " + what_ + " did not finish within " + secs + " s (hang?)",
                              3);
    }
  }
}

}  // namespace ptxbench

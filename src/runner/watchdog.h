// Ends the worker when a candidate call (host code or its kernels) outlives its time limit,
// reporting runtime_error with what was running. The parent's own timeout is the backstop.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "runner/result_channel.h"

namespace ptxbench {

class Watchdog {
 public:
  explicit Watchdog(ResultChannel& channel);
  ~Watchdog();
  void arm(const std::string& what, double seconds);
  void disarm();

 private:
  void loop();
  ResultChannel& channel_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, stop_ = false;
  std::string what_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

// Arms for the lifetime of a scope.
class WatchdogScope {
 public:
  WatchdogScope(Watchdog& w, const std::string& what, double seconds) : w_(w) { w_.arm(what, seconds); }
  ~WatchdogScope() { w_.disarm(); }

 private:
  Watchdog& w_;
};

}  // namespace ptxbench

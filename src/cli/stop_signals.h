// SIGINT/SIGTERM during a run: the first one asks the run to stop (no new model calls or
// judgments; what is stored stays stored and the run resumes later), a second one ends the
// process at once (resume still works: every turn is committed atomically). Signals are taken by
// one thread with sigwait, so the handler does no work in signal context. Construct it before
// any other thread starts, so every thread inherits the blocked mask.
#pragma once
#include <atomic>
#include <functional>
#include <thread>

namespace ptxbench::cli {

class StopSignals {
 public:
  explicit StopSignals(std::function<void(const char* signal_name)> on_first);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  std::function<void(const char*)> on_first_;
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

}  // namespace ptxbench::cli

// SIGINT/SIGTERM during a run: the first one asks the run to stop (no new model calls or
// judgments; what is stored stays stored and the run resumes later), a second one ends the
// process at once (resume still works: every turn is committed atomically). The handler only
// records the signal (async-signal-safe); a watcher thread passes it on. No signal is blocked,
// so the compilers and workers the run starts keep the default signal behaviour.
#pragma once
#include <atomic>
#include <functional>
#include <thread>

namespace ptxbench::cli {

class StopSignals {
 public:
  explicit StopSignals(std::function<void(const char* signal_name)> on_first);
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  std::function<void(const char*)> on_first_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace ptxbench::cli

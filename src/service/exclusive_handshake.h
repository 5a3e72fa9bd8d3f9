// The parent's end of the timed worker's request for exclusive use of its GPU. The worker starts
// (sandbox, CUDA context, library plans, inputs) while the GPU is shared, asks once, just before
// its first timed sample, by writing one byte on a socket it inherits, and waits; this side then
// runs `take` (which blocks until the gate grants exclusive use, and may throw, e.g. InfraFault
// when the GPU stays excluded from timing) and answers 'g' (go) or 'n' (refused). The worker
// closes its end before any candidate code loads; later bytes on it are ignored, so one request
// is served at most. finish() (after the worker has ended) stops the listener and rethrows what
// `take` threw.
#pragma once
#include <exception>

#include "core/subprocess.h"
#include <functional>
#include <thread>

namespace ptxbench {

class ExclusiveHandshake {
 public:
  explicit ExclusiveHandshake(std::function<void()> take);
  ~ExclusiveHandshake();
  ExclusiveHandshake(const ExclusiveHandshake&) = delete;
  ExclusiveHandshake& operator=(const ExclusiveHandshake&) = delete;

  int child_end() const { return child_; }  // pass it to the worker; close_child_end() once it started
  void close_child_end();
  void finish();  // idempotent; rethrows `take`'s exception
  bool requested() const { return requested_; }
  // The time `take` blocks: the worker waits on us then, which its deadline must not count.
  const DeadlinePause* pause() const { return &pause_; }

 private:
  void listen();
  std::function<void()> take_;
  int parent_ = -1, child_ = -1;
  bool requested_ = false, finished_ = false;
  std::exception_ptr error_;
  DeadlinePause pause_;
  std::thread listener_;
};

}  // namespace ptxbench

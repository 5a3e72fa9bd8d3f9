// The parent's end of the timed worker's request for exclusive use of its GPU. The worker starts
// (sandbox, CUDA context, library plans, inputs, its candidate and the first shape's warm-up
// calls) while the GPU is shared, asks once, just before its first timed sample, by writing one
// byte on a socket it inherits, and waits; this side then runs `take` (which blocks until the gate
// grants exclusive use, and may throw, e.g. InfraFault when the GPU stays excluded from timing) and
// answers 'g' (go) followed by the grant's token, or 'n' (refused). The socket stays open while
// candidate code runs, so the token is how the harness knows its own grant came first: the worker
// reports the token it was answered with, and a grant the candidate faked (its own socket put in
// place of this one) carries another token or none (timed_grant.h). The first byte is served as
// the request, whoever wrote it; later ones are ignored. finish() (after the worker has ended)
// stops the listener and rethrows what `take` threw.
#pragma once
#include <exception>

#include "core/subprocess.h"
#include <functional>
#include <string>
#include <thread>

namespace ptxbench {

class ExclusiveHandshake {
 public:
  // `token`: sent after 'g' (kGrantTokenLength characters, service/timed_grant.h).
  ExclusiveHandshake(std::function<void()> take, std::string token);
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
  std::string token_;
  int parent_ = -1, child_ = -1;
  bool requested_ = false, finished_ = false;
  std::exception_ptr error_;
  DeadlinePause pause_;
  std::thread listener_;
};

}  // namespace ptxbench

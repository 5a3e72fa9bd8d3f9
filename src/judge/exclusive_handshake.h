// The parent's end of the timed worker's requests for exclusive use of its GPU (the bytes:
// core/exclusive_grant.h). The worker starts (sandbox, CUDA context, library plans, inputs) while
// the GPU is shared. A worker that must time the library alone asks for the GPU before its
// candidate loads and gives it back after those clean timings, waiting until the harness holds
// shared use again; the load and the first shape's warm-up calls then run beside other lanes'
// work, and it asks once more just before its first timed sample. For each request this side runs
// `take` (which blocks until the gate grants exclusive use, and may throw, e.g. InfraFault when the
// GPU stays excluded from timing) and answers 'g' (go) followed by a fresh token, or 'n'
// (refused); for the give-back it runs `give_back` (shared use again) and answers 's'.
//
// The socket stays open while candidate code runs, so only this order is served: [clean-baseline
// request, give-back,] timing request. After the timing grant nothing is served (a candidate that
// gave the GPU back then would have other lanes' work, or another candidate's timing, run beside
// its samples); a give-back is served only after a clean-baseline grant. Each grant's token is
// how the harness knows its own grants came first: the worker reports the tokens it was answered
// with, and a grant the candidate faked (its own socket put in place of this one) carries another
// token or none (timed_grant.h). finish() (after the worker has ended) stops the listener and
// rethrows what `take` or `give_back` threw.
#pragma once
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/subprocess.h"

namespace ptxbench {

class ExclusiveHandshake {
 public:
  // `give_back` may be empty: the worker is then answered 's' and keeps the GPU alone. `paused`
  // (may be empty: none): once granted, how many shared workers' processes were paused for it.
  ExclusiveHandshake(std::function<void()> take, std::function<void()> give_back,
                     std::function<int()> paused = nullptr);
  ~ExclusiveHandshake();
  ExclusiveHandshake(const ExclusiveHandshake&) = delete;
  ExclusiveHandshake& operator=(const ExclusiveHandshake&) = delete;

  int child_end() const { return child_; }  // pass it to the worker; close_child_end() once it started
  void close_child_end();
  void stop();    // idempotent: the listener ends; what follows may be read
  void finish();  // stop(), then rethrows `take`'s or `give_back`'s exception
  // After stop(): the timing grant's token ("" if none was given), and every token granted.
  const std::string& timing_token() const { return timing_token_; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  // After stop(): what arrived that the worker never sends (out of order, or after the timing
  // grant), e.g. "'r' after the timing grant"; "" if nothing. Only code besides the harness's
  // writes it, so it is the candidate's doing.
  const std::string& misuse() const { return misuse_; }
  // The times `take` and `give_back` block: the worker waits on us then, which its deadline must not count.
  const DeadlinePause* pause() const { return &pause_; }

 private:
  enum class State { shared, clean_baseline_granted, given_back, timing_granted, refused };
  void listen();
  std::string grant();  // runs take_ (unless the GPU is already held alone) and answers
  std::function<void()> take_, give_back_;
  std::function<int()> paused_;
  int parent_ = -1, child_ = -1;
  State state_ = State::shared;
  bool stopped_ = false;
  std::string timing_token_, misuse_;
  std::vector<std::string> tokens_;
  std::exception_ptr error_;
  DeadlinePause pause_;
  std::thread listener_;
};

}  // namespace ptxbench

// The serving process's end of one eval worker's reference pool socket (a SOCK_SEQPACKET pair;
// core/fd_messages.h). Before its candidate loads, the worker may put the references it made for
// this job's fresh sets (sealed memory files), then seals; after each checked call it gets the
// reference of that call's set, once. Every set is handed out at most once per job, so candidate
// code that reaches the socket cannot take a reference unseen: the harness's own request for that
// set is then refused, and the session records a violation (the evaluation is forbidden whatever
// the worker reports). Anything the harness never sends (a put after the seal, a get before it, a
// set not of this job, a second get, an unknown or malformed message) is a violation too.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/fd_messages.h"
#include "core/json.h"
#include "judge/caches/reference_pool.h"

namespace ptxbench {

struct ReferencePlan {
  std::string shape;              // the correctness item's shape, as JSON (shape.dump())
  std::vector<PooledSet> pooled;  // sets from the pool, handed out after their calls
  int fresh = 0;                  // sets the worker may make (and put) before its candidate loads
};

class ReferenceSession {
 public:
  // `made`: called (on the listener's thread) with each set the worker put before the seal, for
  // the pool (so candidates judged at the same time can use it at once).
  using MadeFn = std::function<void(const std::string& shape, const PooledSet& set, double reference_seconds)>;
  ReferenceSession(std::vector<ReferencePlan> plan, MadeFn made);
  ~ReferenceSession();
  ReferenceSession(const ReferenceSession&) = delete;
  ReferenceSession& operator=(const ReferenceSession&) = delete;

  int child_end() const { return child_.get(); }  // pass it to the worker; close_child_end() once it started
  void close_child_end() { child_.reset(); }
  void finish();  // idempotent: stops the listener (after the worker ended)

  std::vector<std::string> violations() const;
  // The sets the worker made and put.
  std::vector<std::pair<std::string, PooledSet>> made() const;
  // {"pooled", "made", "handed_out", "refused", "violations"}
  json summary() const;

 private:
  struct Set {
    PooledSet set;
    bool handed_out = false;
  };
  void listen();
  json handle(const json& message, UniqueFd fd, int& reply_fd);
  json violation(const std::string& what);

  MadeFn on_made_;
  UniqueFd parent_, child_;
  mutable std::mutex mu_;
  std::map<std::string, int> fresh_allowed_;
  std::map<std::pair<std::string, uint64_t>, Set> sets_;  // (shape, seed): pooled and made
  std::vector<std::pair<std::string, PooledSet>> made_;
  bool sealed_ = false, finished_ = false;
  int handed_out_ = 0, refused_ = 0;
  std::vector<std::string> violations_;
  std::thread listener_;
};

}  // namespace ptxbench

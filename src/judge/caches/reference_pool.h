// Workload-state caching, the pooled part: per (GPU, workload scope, shape), a rotating pool of
// input sets with their fp32 references, so a candidate's correctness checks need not compute
// references that an earlier candidate's worker already made. A set is a seed (drawn from the OS
// by the worker that made it) and a sealed memory file with the reference's bytes; the inputs are
// generated again from the seed (deterministic per workload). The pool lives in the serving
// process, outside every candidate's process: a reference reaches a worker only through its
// ReferenceSession (judge/reference_session.h), once, after the candidate's call.
//
// Policy: a candidate (by the SHA-256 of its source) never gets a set it has used, its maker
// included; a set serves at most `max_uses` checks and lives at most `ttl`; at most
// `sets_per_shape` sets per key and `budget_bytes` in all (the most used go first); anything the
// reliability monitor records about a GPU drops its sets. Thread-safe.
//
// A shape is pooled only while that pays: the pool keeps, per key, the mean time the makers took
// to compute a reference and the mean time a hand-over took (the copy back into the GPU of a
// worker). Once both are known and the hand-over is not the faster, the shape is not pooled (its
// checks compute their own), and its sets are dropped. On the H200 bench this keeps backward
// attention pooled (about 0.2 s to compute under sharing) and leaves out GEMMs, whose fp32
// reference takes a few ms on the GPU while copying it in takes longer.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/fd_messages.h"
#include "core/json.h"

namespace ptxbench {

struct PooledSet {
  uint64_t seed = 0;
  std::shared_ptr<const UniqueFd> file;  // sealed memory file: the reference's buffers, in order
  size_t bytes = 0;
};

struct ReferencePoolPolicy {
  int max_uses = 8;
  std::chrono::seconds ttl = std::chrono::minutes(30);
  int sets_per_shape = 8;
  size_t budget_bytes = size_t(8) << 30;
};

class ReferencePool {
 public:
  explicit ReferencePool(ReferencePoolPolicy policy = {}) : policy_(policy) {}
  // Up to `want` sets of (device, scope, shape) that `candidate` has not used, each counted as used by it.
  std::vector<PooledSet> take(int device, const std::string& scope, const std::string& shape,
                              const std::string& candidate, int want);
  // A set made by `maker`'s worker before its candidate loaded (it counts as used by `maker`).
  // `reference_seconds` < 0: not measured.
  void add(int device, const std::string& scope, const std::string& shape, PooledSet set, const std::string& maker,
           double reference_seconds = -1);
  // A worker's hand-over of one set of this key: the seconds from its request to the reference
  // written back into its GPU buffers.
  void record_handover(int device, const std::string& scope, const std::string& shape, double seconds);
  // "" when the key may be pooled; else why not (measured: the hand-over is not faster).
  std::string why_not_pooled(int device, const std::string& scope, const std::string& shape) const;
  void invalidate(int device);
  // {"sets", "bytes", "served", "added", "evicted"}
  json stats() const;
  const ReferencePoolPolicy& policy() const { return policy_; }

 private:
  struct Entry {
    PooledSet set;
    std::chrono::steady_clock::time_point made;
    int uses = 0;
    std::set<std::string> users;
  };
  using Key = std::tuple<int, std::string, std::string>;
  struct Costs {
    double compute_sum = 0, handover_sum = 0;
    int computes = 0, handovers = 0;
    std::string why_not() const;
  };
  std::map<Key, Costs> costs_;
  void evict_to_budget();
  using Entries = std::map<Key, std::vector<Entry>>;
  // Both count what they remove as evicted and keep bytes_.
  void erase(Entries::iterator key, size_t index);
  Entries::iterator erase_all(Entries::iterator key);

  ReferencePoolPolicy policy_;
  mutable std::mutex mu_;
  Entries entries_;
  size_t bytes_ = 0;
  long long served_ = 0, added_ = 0, evicted_ = 0;
};

}  // namespace ptxbench

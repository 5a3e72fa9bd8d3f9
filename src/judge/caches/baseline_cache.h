// Workload-state caching, the part built: the library's clean timings (timed alone, before any
// candidate code was loaded) per (problem, shape, GPU, timing config), reused by the timed
// workers of later candidates on the same GPU for `ttl`, and dropped for a GPU whenever the
// reliability monitor records anything about it (a restart, a calibration drift, throttling).
// These timings are no secret (the drift check compares the library beside the candidate with
// them); speedups are never computed from them. Thread-safe.
//
// Single flight: a timed worker claims the shapes it finds missing and times them; a later worker
// of the same scope that needs one of them waits for that store (or for the claim's release,
// when the first worker ended without a clean timing) instead of timing the library again. A
// worker that times the library alone asks for exclusive use before its candidate loads, and
// only one worker holds the GPU alone at a time, so waiting costs it nothing the GPU could give.
#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/json.h"

namespace ptxbench {

class BaselineCache;

// What a timed worker starts with: the clean timings found fresh, and the shapes left for it to
// time (claimed until it is destroyed, stored or not).
class BaselineClaim {
 public:
  BaselineClaim() = default;
  BaselineClaim(BaselineClaim&& o) noexcept { *this = std::move(o); }
  BaselineClaim& operator=(BaselineClaim&& o) noexcept;
  BaselineClaim(const BaselineClaim&) = delete;
  BaselineClaim& operator=(const BaselineClaim&) = delete;
  ~BaselineClaim() { release(); }

  const json& cached() const { return cached_; }  // {shape.dump() -> baseline_alone event}
  size_t claimed_shapes() const { return keys_.size(); }
  double waited_seconds() const { return waited_seconds_; }  // for another worker's clean timings
  void release();

 private:
  friend class BaselineCache;
  using Key = std::tuple<int, std::string, std::string>;  // (device, scope, shape)
  BaselineCache* cache_ = nullptr;
  std::vector<Key> keys_;
  json cached_ = json::object();
  double waited_seconds_ = 0;
};

class BaselineCache {
 public:
  explicit BaselineCache(std::chrono::seconds ttl = std::chrono::minutes(10)) : ttl_(ttl) {}
  // {shape.dump() -> baseline_alone event} for the timed items found fresh in the cache.
  json lookup(const std::string& scope, int device, const json& timing_items);
  // As lookup, but first waits (up to `max_wait`) for the shapes another claim is timing, and
  // claims the ones still missing for the caller.
  BaselineClaim claim(const std::string& scope, int device, const json& timing_items, std::chrono::seconds max_wait);
  // Keeps the measured (not cached) baseline_alone events of a timed worker.
  void store(const std::string& scope, int device, const std::vector<json>& baseline_alone_events);
  void invalidate(int device);
  long long hits() const;

 private:
  friend class BaselineClaim;
  using Key = BaselineClaim::Key;
  struct Entry {
    json event;
    std::chrono::steady_clock::time_point at;
  };
  // Under mu_: the fresh entry for `key`, expired ones dropped.
  const Entry* fresh(const Key& key, std::chrono::steady_clock::time_point now);
  void release(const std::vector<Key>& keys);

  std::chrono::seconds ttl_;
  mutable std::mutex mu_;
  std::condition_variable changed_;  // a store or a released claim
  std::map<Key, Entry> entries_;
  std::set<Key> claimed_;
  long long hits_ = 0;
};

}  // namespace ptxbench

// Workload-state caching, the part built: the library's clean timings (timed alone, before any
// candidate code was loaded) per (problem, shape, GPU, timing config), reused by the timed
// workers of later candidates on the same GPU for `ttl`, and dropped for a GPU whenever the
// reliability monitor records anything about it (a restart, a calibration drift, throttling).
// These timings are no secret (the drift check compares the library beside the candidate with
// them); speedups are never computed from them. Thread-safe.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

class BaselineCache {
 public:
  explicit BaselineCache(std::chrono::seconds ttl = std::chrono::minutes(10)) : ttl_(ttl) {}
  // {shape.dump() -> baseline_alone event} for the timed items found fresh in the cache.
  json lookup(const std::string& scope, int device, const json& timing_items);
  // Keeps the measured (not cached) baseline_alone events of a timed worker.
  void store(const std::string& scope, int device, const std::vector<json>& baseline_alone_events);
  void invalidate(int device);
  long long hits() const;

 private:
  struct Entry {
    json event;
    std::chrono::steady_clock::time_point at;
  };
  std::chrono::seconds ttl_;
  mutable std::mutex mu_;
  std::map<std::tuple<int, std::string, std::string>, Entry> entries_;  // (device, scope, shape)
  long long hits_ = 0;
};

}  // namespace ptxbench

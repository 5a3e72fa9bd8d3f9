#include "service/engine/baseline_cache.h"

#include "core/timestamp.h"

namespace ptxbench {

json BaselineCache::lookup(const std::string& scope, int device, const json& timing_items) {
  json out = json::object();
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  for (const auto& item : timing_items) {
    const std::string shape = item.at("shape").dump();
    auto it = entries_.find({device, scope, shape});
    if (it == entries_.end()) continue;
    if (now - it->second.at > ttl_) {
      entries_.erase(it);
      continue;
    }
    out[shape] = it->second.event;
    ++hits_;
  }
  return out;
}

void BaselineCache::store(const std::string& scope, int device, const std::vector<json>& events) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  for (const auto& e : events) {
    if (e.value("cached", false) || !e.contains("shape")) continue;
    json kept = {{"median_ms", e.at("median_ms")}, {"median_error", e.at("median_error")}, {"samples", e.at("samples")},
                 {"sm_clock_mhz", e.at("sm_clock_mhz")},
                 {"when", "cached: timed alone on this GPU, before another candidate was loaded, at " + utc_timestamp_ms()}};
    entries_[{device, scope, e.at("shape").dump()}] = {std::move(kept), now};
  }
}

void BaselineCache::invalidate(int device) {
  std::lock_guard lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();)
    it = std::get<0>(it->first) == device ? entries_.erase(it) : std::next(it);
}

long long BaselineCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}

}  // namespace ptxbench

// Caches the library's clean timings per (problem, shape, GPU, timing config) for later timed workers.
#include "judge/caches/baseline_cache.h"

#include "core/timestamp.h"

namespace ptxbench {

BaselineClaim& BaselineClaim::operator=(BaselineClaim&& o) noexcept {
  if (this != &o) {
    release();
    cache_ = o.cache_, keys_ = std::move(o.keys_), cached_ = std::move(o.cached_), waited_seconds_ = o.waited_seconds_;
    o.cache_ = nullptr;
    o.keys_.clear();
  }
  return *this;
}

void BaselineClaim::release() {
  if (cache_ && !keys_.empty()) cache_->release(keys_);
  keys_.clear();
  cache_ = nullptr;
}

const BaselineCache::Entry* BaselineCache::fresh(const Key& key, std::chrono::steady_clock::time_point now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  if (now - it->second.at > ttl_) {
    entries_.erase(it);
    return nullptr;
  }
  return &it->second;
}

json BaselineCache::lookup(const std::string& scope, int device, const json& timing_items) {
  json out = json::object();
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  for (const auto& item : timing_items) {
    const std::string shape = item.at("shape").dump();
    if (const Entry* e = fresh({device, scope, shape}, now)) {
      out[shape] = e->event;
      ++hits_;
    }
  }
  return out;
}

BaselineClaim BaselineCache::claim(const std::string& scope, int device, const json& timing_items,
                                   std::chrono::seconds max_wait) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + max_wait;
  std::unique_lock lock(mu_);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    bool another_is_timing = false;
    for (const auto& item : timing_items) {
      const Key key{device, scope, item.at("shape").dump()};
      if (!fresh(key, now) && claimed_.count(key)) another_is_timing = true;
    }
    if (!another_is_timing || now >= deadline) break;
    changed_.wait_until(lock, deadline);
  }
  BaselineClaim c;
  c.cache_ = this;
  c.waited_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto now = std::chrono::steady_clock::now();
  for (const auto& item : timing_items) {
    const std::string shape = item.at("shape").dump();
    const Key key{device, scope, shape};
    if (const Entry* e = fresh(key, now)) {
      c.cached_[shape] = e->event;
      ++hits_;
    } else if (claimed_.insert(key).second) {
      c.keys_.push_back(key);  // past the deadline a shape still claimed by another is timed unclaimed
    }
  }
  return c;
}

void BaselineCache::release(const std::vector<Key>& keys) {
  {
    std::lock_guard lock(mu_);
    for (const auto& k : keys) claimed_.erase(k);
  }
  changed_.notify_all();
}

void BaselineCache::store(const std::string& scope, int device, const std::vector<json>& events) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    for (const auto& e : events) {
      // A stored timing the worker re-validated (library_timings.h) is as good as one it measured.
      const bool validated = e.value("library_cache", "") == "hit-validated";
      if ((e.value("cached", false) && !validated) || !e.contains("shape")) continue;
      json kept = {
          {"median_ms", e.at("median_ms")},
          {"median_error", e.at("median_error")},
          {"samples", e.at("samples")},
          {"sm_clock_mhz", e.at("sm_clock_mhz")},
          {"when", "cached: timed alone on this GPU, before another candidate was loaded, at " + utc_timestamp_ms()}};
      entries_[{device, scope, e.at("shape").dump()}] = {std::move(kept), now};
    }
  }
  changed_.notify_all();
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

// A rotating pool of input sets with their fp32 references per (GPU, workload scope, shape).
#include "judge/caches/reference_pool.h"

#include <algorithm>
#include <cstdio>

namespace ptxbench {

void ReferencePool::erase(Entries::iterator key, size_t index) {
  ++evicted_;
  bytes_ -= key->second[index].set.bytes;
  key->second.erase(key->second.begin() + long(index));
  if (key->second.empty()) entries_.erase(key);
}

ReferencePool::Entries::iterator ReferencePool::erase_all(Entries::iterator key) {
  evicted_ += long(key->second.size());
  for (const auto& e : key->second) bytes_ -= e.set.bytes;
  return entries_.erase(key);
}

std::vector<PooledSet> ReferencePool::take(int device, const std::string& scope, const std::string& shape,
                                           const std::string& candidate, int want) {
  std::vector<PooledSet> out;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto key = entries_.find({device, scope, shape});
  if (key == entries_.end()) return out;
  auto& sets = key->second;
  // The least used first, so a set's uses spread over the candidates that come.
  std::stable_sort(sets.begin(), sets.end(), [](const Entry& a, const Entry& b) { return a.uses < b.uses; });
  for (size_t i = 0; i < sets.size() && int(out.size()) < want;) {
    Entry& e = sets[i];
    if (now - e.made > policy_.ttl || e.uses >= policy_.max_uses) {
      const bool last = sets.size() == 1;
      erase(key, i);
      if (last) break;
      continue;
    }
    if (!e.users.insert(candidate).second) {
      ++i;
      continue;
    }
    ++e.uses;
    ++served_;
    out.push_back(e.set);
    ++i;
  }
  return out;
}

std::string ReferencePool::Costs::why_not() const {
  if (computes == 0 || handovers == 0) return "";
  const double compute = compute_sum / computes, handover = handover_sum / handovers;
  if (handover < compute) return "";
  char why[200];
  std::snprintf(why, sizeof why, "not pooled: a hand-over took %.1f ms on average, computing the reference %.1f ms",
                1e3 * handover, 1e3 * compute);
  return why;
}

void ReferencePool::record_handover(int device, const std::string& scope, const std::string& shape, double seconds) {
  std::lock_guard lock(mu_);
  Costs& c = costs_[{device, scope, shape}];
  c.handover_sum += seconds, ++c.handovers;
  if (c.why_not().empty()) return;
  if (auto key = entries_.find({device, scope, shape}); key != entries_.end())
    erase_all(key);  // no use for its sets now
}

std::string ReferencePool::why_not_pooled(int device, const std::string& scope, const std::string& shape) const {
  std::lock_guard lock(mu_);
  const auto c = costs_.find({device, scope, shape});
  return c == costs_.end() ? "" : c->second.why_not();
}

void ReferencePool::add(int device, const std::string& scope, const std::string& shape, PooledSet set,
                        const std::string& maker, double reference_seconds) {
  if (!set.file || !*set.file) return;
  std::lock_guard lock(mu_);
  if (reference_seconds >= 0) {
    Costs& c = costs_[{device, scope, shape}];
    c.compute_sum += reference_seconds, ++c.computes;
  }
  if (set.bytes > policy_.budget_bytes) return;
  auto& sets = entries_[{device, scope, shape}];
  Entry e{std::move(set), std::chrono::steady_clock::now(), 1, {maker}};
  bytes_ += e.set.bytes;
  sets.push_back(std::move(e));
  ++added_;
  auto key = entries_.find({device, scope, shape});
  while (int(key->second.size()) > std::max(1, policy_.sets_per_shape)) {
    auto most = std::max_element(key->second.begin(), key->second.end(),
                                 [](const Entry& a, const Entry& b) { return a.uses < b.uses; });
    erase(key, size_t(most - key->second.begin()));
  }
  evict_to_budget();
}

// The most used set anywhere goes first (the oldest among equals).
void ReferencePool::evict_to_budget() {
  while (bytes_ > policy_.budget_bytes && !entries_.empty()) {
    auto victim_key = entries_.end();
    size_t victim = 0;
    for (auto k = entries_.begin(); k != entries_.end(); ++k)
      for (size_t i = 0; i < k->second.size(); ++i) {
        const Entry& e = k->second[i];
        if (victim_key == entries_.end()) {
          victim_key = k, victim = i;
          continue;
        }
        const Entry& v = victim_key->second[victim];
        if (e.uses > v.uses || (e.uses == v.uses && e.made < v.made)) victim_key = k, victim = i;
      }
    erase(victim_key, victim);
  }
}

void ReferencePool::invalidate(int device) {
  std::lock_guard lock(mu_);
  for (auto it = costs_.begin(); it != costs_.end();)
    it = std::get<0>(it->first) == device ? costs_.erase(it) : std::next(it);
  for (auto it = entries_.begin(); it != entries_.end();)
    it = std::get<0>(it->first) == device ? erase_all(it) : std::next(it);
}

json ReferencePool::stats() const {
  std::lock_guard lock(mu_);
  size_t sets = 0;
  for (const auto& [k, v] : entries_) sets += v.size();
  long long not_pooled = 0;
  for (const auto& [k, c] : costs_) not_pooled += !c.why_not().empty();
  return {{"sets", sets},    {"bytes", bytes_},     {"served", served_},
          {"added", added_}, {"evicted", evicted_}, {"shapes_not_pooled", not_pooled}};
}

}  // namespace ptxbench

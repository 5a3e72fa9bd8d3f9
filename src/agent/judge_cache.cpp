// Judges identical candidates of a run once: later turns with the same (problem, sha256) reuse or wait.
#include "agent/judge_cache.h"

namespace ptxbench {

std::optional<JudgedCandidate> JudgeCache::acquire(const std::string& problem, const std::string& sha256, bool* owner) {
  const Key key{problem, sha256};
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !in_flight_.count(key); });
  *owner = false;
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  in_flight_.insert(key);
  *owner = true;
  return std::nullopt;
}

void JudgeCache::publish(const std::string& problem, const std::string& sha256, JudgedCandidate judged) {
  {
    std::lock_guard lock(mutex_);
    const Key key{problem, sha256};
    in_flight_.erase(key);
    done_.emplace(key, std::move(judged));
  }
  changed_.notify_all();
}

void JudgeCache::abandon(const std::string& problem, const std::string& sha256) {
  {
    std::lock_guard lock(mutex_);
    in_flight_.erase({problem, sha256});
  }
  changed_.notify_all();
}

void JudgeCache::seed(const std::string& problem, const std::string& sha256, JudgedCandidate judged) {
  std::lock_guard lock(mutex_);
  done_.emplace(Key{problem, sha256}, std::move(judged));
}

}  // namespace ptxbench

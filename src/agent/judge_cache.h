// Identical candidates within a run are judged once: the first turn that submits a (problem,
// sha256) judges it, later turns with the same bytes reuse its evaluation (or wait for it while it
// is in flight). Arch and evaluation switches are fixed per run, so (problem, sha256) is the key.
// An infra_error evaluation is never reused. Disabled by --rejudge.
#pragma once
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace ptxbench {

struct JudgedCandidate {
  long long evaluation_id = 0;
  std::string problem;
  int trajectory = 0, turn = 0;  // the turn whose judgment this is
};

class JudgeCache {
 public:
  // A finished judgment, or nullopt with *owner = true: the caller judges it, then calls publish()
  // or abandon(). Blocks while another turn is judging the same candidate.
  std::optional<JudgedCandidate> acquire(const std::string& problem, const std::string& sha256, bool* owner);
  void publish(const std::string& problem, const std::string& sha256, JudgedCandidate judged);
  void abandon(const std::string& problem, const std::string& sha256);  // judging failed: the next one tries
  void seed(const std::string& problem, const std::string& sha256, JudgedCandidate judged);  // from stored turns

 private:
  using Key = std::pair<std::string, std::string>;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<Key, JudgedCandidate> done_;
  std::set<Key> in_flight_;
};

}  // namespace ptxbench

// The progress line of `fixit build` (stderr): items done of the items to fix, by outcome, teacher
// calls and their cost, and the service's load. On a terminal it redraws in place; elsewhere one
// line per finished item.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include "service/candidate_service.h"

namespace ptxbench::fixit {

class BuildProgress {
 public:
  BuildProgress(std::string build_id, long long items, std::ostream& out, bool interactive,
                std::function<ServiceLoad()> load);
  void item_done(const std::string& outcome);  // record, dropped, pending
  void teacher_call(double cost_usd);
  void message(const std::string& line);
  void finish();

 private:
  std::string line_locked() const;
  void draw_locked(bool force);

  std::string build_id_;
  long long items_, done_ = 0, teacher_calls_ = 0;
  double cost_ = 0;
  std::map<std::string, long long> outcomes_;
  std::ostream& out_;
  bool interactive_;
  std::function<ServiceLoad()> load_;
  mutable std::mutex mutex_;
};

}  // namespace ptxbench::fixit

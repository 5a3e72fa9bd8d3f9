// The live progress of a run: one line (trajectories done, turns done, verdict counts, what the
// candidate service holds, retries), redrawn in place on a terminal and printed as a plain line
// per update otherwise. Messages (retries, stops) are printed above it, never swallowed.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include "service/candidate_service.h"

namespace ptxbench {

class RunProgress {
 public:
  RunProgress(std::string run_id, int trajectories_total, int turns_total, std::ostream& out, bool interactive,
              std::function<ServiceLoad()> load);
  void set_done(int trajectories_done, int turns_done, const std::map<std::string, int>& states);
  void turn_done(const std::string& state, bool trajectory_complete);
  void retry(const std::string& message);  // a visible line, counted
  void message(const std::string& message);
  void redraw();  // the periodic refresh on a terminal (no-op otherwise)
  void finish();  // the final line, then a newline
  std::string line() const;

 private:
  void draw_locked(bool force_line);
  std::string line_locked() const;

  std::string run_id_;
  int trajectories_total_, turns_total_;
  int trajectories_done_ = 0, turns_done_ = 0, retries_ = 0;
  std::map<std::string, int> states_;
  std::ostream& out_;
  bool interactive_;
  std::function<ServiceLoad()> load_;
  std::string last_line_;  // the last line printed (not on a terminal), so finish() does not repeat it
  mutable std::mutex mutex_;
};

}  // namespace ptxbench

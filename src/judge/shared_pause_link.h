// The harness's end of one shared-lane worker's pause socket (core/shared_pause.h): the gate asks
// it to pause when a timed worker wants the GPU alone (ask_to_pause, wait_until_paused), and lets it
// go on when the exclusive window ends (resume), reading the worker's signed report of the GPU work
// that ran after it acknowledged and holding it against the window (judge/pause_overlap.h). Work
// in the window makes the window untrusted (the timing is taken again); work after the harness had
// the acknowledgement, a report that does not verify, or bytes the worker never sends are the
// candidate's doing: violation() says so once the worker ended, and its evaluation is `forbidden`.
// A request not acknowledged in time is withdrawn (a resume sent at once; the worker's late
// acknowledgement and report are read and checked before the next request's).
// The wait for the resume is no time of the worker's deadline (pause()).
#pragma once
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "core/subprocess.h"
#include "judge/gpu_lane_gate.h"

namespace ptxbench {

class SharedPauseLink final : public PausableSharedWorker {
 public:
  // `report_timeout`: how long a resumed worker may take to send its report.
  explicit SharedPauseLink(std::chrono::milliseconds report_timeout = std::chrono::seconds(5));
  ~SharedPauseLink() override;
  SharedPauseLink(const SharedPauseLink&) = delete;
  SharedPauseLink& operator=(const SharedPauseLink&) = delete;

  int child_end() const { return child_; }  // pass it to the worker; close_child_end() once it started
  void close_child_end();
  void set_channel_key(const std::string& key_hex);  // the run's result-channel key: the report's HMAC
  const DeadlinePause* pause() const { return &pause_; }

  void ask_to_pause() override;
  bool wait_until_paused(std::chrono::steady_clock::time_point until) override;
  PauseCheck resume(const std::optional<ExclusiveWindow>& window) override;

  // Why the worker's candidate is forbidden ("" = nothing found); read it after the worker ended.
  std::string violation() const;
  int pauses() const;             // acknowledged pauses
  int untrusted_windows() const;  // windows its work (or a missing report) made untrusted

 private:
  void note_violation(const std::string& why);  // mu_ held
  std::optional<std::string> read_report_line();
  // Reads the report that follows a resume and holds it against `window` (none: checked, nothing held). mu_ held.
  PauseCheck check_report(const std::optional<ExclusiveWindow>& window);

  const std::chrono::milliseconds report_timeout_;
  int parent_ = -1, child_ = -1;
  std::string key_;
  DeadlinePause pause_;
  mutable std::mutex mu_;
  int asked_ = 0, acked_count_ = 0, untrusted_ = 0;
  int withdrawn_ = 0;  // requests given up (resumed at once) whose acknowledgement has not been read
  bool paused_ = false, gone_ = false;
  uint64_t acked_ns_ = 0;
  std::string violation_;
};

}  // namespace ptxbench

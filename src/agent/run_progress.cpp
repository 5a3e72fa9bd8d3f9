// A run's live progress line, redrawn in place on a terminal, with messages printed above it.
#include "agent/run_progress.h"

namespace ptxbench {

RunProgress::RunProgress(std::string run_id, int trajectories_total, int turns_total, std::ostream& out,
                         bool interactive, std::function<ServiceLoad()> load)
    : run_id_(std::move(run_id)),
      trajectories_total_(trajectories_total),
      turns_total_(turns_total),
      out_(out),
      interactive_(interactive),
      load_(std::move(load)) {}

void RunProgress::set_done(int trajectories_done, int turns_done, const std::map<std::string, int>& states) {
  std::lock_guard lock(mutex_);
  trajectories_done_ = trajectories_done;
  turns_done_ = turns_done;
  states_ = states;
}

std::string RunProgress::line_locked() const {
  std::string s = "[" + run_id_ + "] trajectories " + std::to_string(trajectories_done_) + "/" +
                  std::to_string(trajectories_total_) + ", turns " + std::to_string(turns_done_) + "/" +
                  std::to_string(turns_total_);
  if (!states_.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [state, n] : states_) s += (first ? "" : ", ") + state + " " + std::to_string(n), first = false;
    s += ")";
  }
  if (load_) {
    const ServiceLoad l = load_();
    s += ", compiling " + std::to_string(l.compiling) +
         (l.compile_queued ? "+" + std::to_string(l.compile_queued) + " queued" : "") + ", GPU queue " +
         std::to_string(l.gpu_queued) + (l.judging ? " (+1 on the GPU lane)" : "");
  }
  s += ", retries " + std::to_string(retries_);
  return s;
}

std::string RunProgress::line() const {
  std::lock_guard lock(mutex_);
  return line_locked();
}

void RunProgress::draw_locked(bool force_line) {
  if (interactive_) {
    out_ << "\r\033[K" << line_locked() << std::flush;
  } else if (force_line) {
    last_line_ = line_locked();
    out_ << last_line_ << "\n" << std::flush;
  }
}

void RunProgress::turn_done(const std::string& state, bool trajectory_complete) {
  std::lock_guard lock(mutex_);
  ++turns_done_;
  ++states_[state];
  if (trajectory_complete) ++trajectories_done_;
  draw_locked(true);
}

void RunProgress::retry(const std::string& m) {
  std::lock_guard lock(mutex_);
  ++retries_;
  out_ << (interactive_ ? "\r\033[K" : "") << "[" << run_id_ << "] " << m << "\n";
  draw_locked(false);
}

void RunProgress::message(const std::string& m) {
  std::lock_guard lock(mutex_);
  out_ << (interactive_ ? "\r\033[K" : "") << "[" << run_id_ << "] " << m << "\n";
  draw_locked(false);
}

void RunProgress::redraw() {
  std::lock_guard lock(mutex_);
  if (interactive_) draw_locked(false);
}

void RunProgress::finish() {
  std::lock_guard lock(mutex_);
  if (interactive_) out_ << "\r\033[K" << line_locked() << "\n" << std::flush;
  else if (const std::string l = line_locked(); l != last_line_) out_ << l << "\n" << std::flush;
}

}  // namespace ptxbench

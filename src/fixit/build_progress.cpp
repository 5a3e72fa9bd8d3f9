// The progress line of `fixit build`: items by outcome, teacher calls and cost, the service's load.
#include "fixit/build_progress.h"

#include <cstdio>

namespace ptxbench::fixit {

BuildProgress::BuildProgress(std::string build_id, long long items, std::ostream& out, bool interactive,
                             std::function<ServiceLoad()> load)
    : build_id_(std::move(build_id)), items_(items), out_(out), interactive_(interactive), load_(std::move(load)) {}

std::string BuildProgress::line_locked() const {
  std::string s = "[" + build_id_ + "] items " + std::to_string(done_) + "/" + std::to_string(items_);
  if (!outcomes_.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [k, n] : outcomes_) s += (first ? "" : ", ") + k + " " + std::to_string(n), first = false;
    s += ")";
  }
  char cost[32];
  std::snprintf(cost, sizeof cost, "%.4f", cost_);
  s += ", teacher calls " + std::to_string(teacher_calls_) + " ($" + cost + ")";
  if (load_) {
    const ServiceLoad l = load_();
    s += ", compiling " + std::to_string(l.compiling) +
         (l.compile_queued ? "+" + std::to_string(l.compile_queued) + " queued" : "") + ", GPU queue " +
         std::to_string(l.gpu_queued);
  }
  return s;
}

void BuildProgress::draw_locked(bool force) {
  if (interactive_) out_ << "\r\033[K" << line_locked() << std::flush;
  else if (force) out_ << line_locked() << "\n" << std::flush;
}

void BuildProgress::item_done(const std::string& outcome) {
  std::lock_guard lock(mutex_);
  ++done_;
  ++outcomes_[outcome];
  draw_locked(true);
}

void BuildProgress::teacher_call(double cost_usd) {
  std::lock_guard lock(mutex_);
  ++teacher_calls_;
  cost_ += cost_usd;
  draw_locked(false);
}

void BuildProgress::message(const std::string& line) {
  std::lock_guard lock(mutex_);
  out_ << (interactive_ ? "\r\033[K" : "") << "[" << build_id_ << "] " << line << "\n";
  draw_locked(false);
}

void BuildProgress::finish() {
  std::lock_guard lock(mutex_);
  if (interactive_) out_ << "\r\033[K";
  out_ << line_locked() << "\n" << std::flush;
}

}  // namespace ptxbench::fixit

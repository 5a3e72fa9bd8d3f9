// The harness's end of a shared-lane worker's pause socket: ask to pause, wait, resume, read the report.
#include "judge/shared_pause_link.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/shared_pause.h"
#include "core/timestamp.h"
#include "judge/result_lines.h"

namespace ptxbench {
namespace {

// Waits until `fd` is readable or `until` passed; false on the deadline.
bool readable_by(int fd, std::chrono::steady_clock::time_point until) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, int(std::max<long long>(0, left.count())));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

std::string byte_name(char c) {
  return c >= 0x20 && c < 0x7f ? "'" + std::string(1, c) + "'"
                               : "byte " + std::to_string(int(static_cast<unsigned char>(c)));
}

}  // namespace

SharedPauseLink::SharedPauseLink(std::chrono::milliseconds report_timeout) : report_timeout_(report_timeout) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail(std::string("socketpair for a shared worker's pause: ") + std::strerror(errno));
  parent_ = fds[0], child_ = fds[1];
}

SharedPauseLink::~SharedPauseLink() {
  close_child_end();
  if (parent_ >= 0) ::close(parent_);
}

void SharedPauseLink::close_child_end() {
  if (child_ >= 0) ::close(child_);
  child_ = -1;
}

void SharedPauseLink::set_channel_key(const std::string& key_hex) {
  std::lock_guard lock(mu_);
  key_ = key_hex;
}

void SharedPauseLink::note_violation(const std::string& why) {
  if (violation_.empty()) violation_ = why;
}

void SharedPauseLink::ask_to_pause() {
  std::lock_guard lock(mu_);
  ++asked_;
  if (::send(parent_, &kAskToPause, 1, MSG_NOSIGNAL) != 1) gone_ = true;
}

bool SharedPauseLink::wait_until_paused(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (gone_) return false;
    if (!readable_by(parent_, until)) {
      // Given up: the request is withdrawn by a resume sent at once. The worker still answers it at
      // its next call boundary (an acknowledgement and a report), which is read before the next one.
      if (::send(parent_, &kResume, 1, MSG_NOSIGNAL) != 1) gone_ = true;
      ++withdrawn_;
      return false;
    }
    char c = 0;
    ssize_t n;
    do n = ::read(parent_, &c, 1);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {  // ended (or its socket closed): it may still run, so it is waited for, not trusted
      gone_ = true;
      return false;
    }
    if (c != kPaused) {
      note_violation("code besides the harness wrote on the shared worker's pause socket: " + byte_name(c) +
                     " instead of its acknowledgement");
      gone_ = true;  // nothing more it says is believed; the gate waits for it to end
      return false;
    }
    ++acked_count_;
    if (withdrawn_ > 0) {  // the answer to a withdrawn request, already resumed: its report follows
      --withdrawn_;
      check_report(std::nullopt);
      continue;
    }
    paused_ = true;
    acked_ns_ = gpu_activity_clock_ns();
    pause_.begin();
    return true;
  }
}

std::optional<std::string> SharedPauseLink::read_report_line() {
  const auto until = std::chrono::steady_clock::now() + report_timeout_;
  std::string line;
  char buf[4096];
  while (line.size() < kPauseReportMaxBytes) {
    if (!readable_by(parent_, until)) return std::nullopt;
    const ssize_t n = ::read(parent_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    line.append(buf, size_t(n));
    if (const auto nl = line.find('\n'); nl != std::string::npos) {
      if (nl + 1 != line.size()) return line;  // more than one line: kept whole, and refused below
      line.pop_back();
      return line;
    }
  }
  return line;  // too long: refused below
}

PauseCheck SharedPauseLink::resume(const std::optional<ExclusiveWindow>& window) {
  std::lock_guard lock(mu_);
  if (!paused_) return {};
  paused_ = false;
  if (::send(parent_, &kResume, 1, MSG_NOSIGNAL) != 1) gone_ = true;
  PauseCheck check = check_report(window);
  pause_.end();
  return check;
}

PauseCheck SharedPauseLink::check_report(const std::optional<ExclusiveWindow>& window) {
  PauseCheck check;
  const std::optional<std::string> line = gone_ ? std::nullopt : read_report_line();
  auto untrusted = [&](const std::string& why) {
    if (!window) return check;  // paused for nothing: no timing hangs on it
    ++untrusted_;
    check.untrusted = "a paused shared worker " + why;
    return check;
  };
  if (!line) {
    // Ended while paused (its report with it), or silent: its work in the window is unknown.
    gone_ = true;
    return untrusted("sent no report of its GPU work within " + std::to_string(report_timeout_.count()) +
                     " ms of being resumed");
  }
  const auto space = line->find(' ');
  const std::string mac = space == std::string::npos ? "" : line->substr(0, space);
  const std::string text = space == std::string::npos ? "" : line->substr(space + 1);
  if (key_.empty() || mac.size() != 64 || hmac_sha256_hex(key_, kPauseReportPrefix + text) != mac) {
    note_violation("the shared worker's pause report does not verify (code besides the harness wrote it)");
    return untrusted("sent a pause report that does not verify");
  }
  PauseReport report;
  try {
    report = parse_pause_report(json::parse(text));
  } catch (const std::exception& e) {
    note_violation(std::string("the shared worker's pause report is malformed: ") + e.what());
    return untrusted("sent a malformed pause report");
  }
  if (report.pause != acked_count_) {
    note_violation("the shared worker's pause report is for pause " + std::to_string(report.pause) + ", not " +
                   std::to_string(acked_count_) + " (a report sent again)");
    return untrusted("sent a report of another pause");
  }
  if (!window) return check;
  if (!report.activity_known) return untrusted("recorded no GPU activity, so its pause proves nothing");
  if (report.dropped_records > 0)
    return untrusted("lost " + std::to_string(report.dropped_records) +
                     " activity records, so its pause proves nothing");
  const auto overlaps = overlaps_with_window(*window, acked_ns_, report);
  if (overlaps.empty()) return check;
  const std::string what = describe_overlaps(overlaps, *window, acked_ns_);
  for (const auto& o : overlaps)
    if (o.caused_by_worker) {
      note_violation("its GPU work ran in another worker's exclusive timing window after it acknowledged the pause: " +
                     what);
      break;
    }
  return untrusted("kept the GPU busy in the exclusive window: " + what);
}

std::string SharedPauseLink::violation() const {
  std::lock_guard lock(mu_);
  return violation_;
}

int SharedPauseLink::pauses() const {
  std::lock_guard lock(mu_);
  return acked_count_;
}

int SharedPauseLink::untrusted_windows() const {
  std::lock_guard lock(mu_);
  return untrusted_;
}

}  // namespace ptxbench

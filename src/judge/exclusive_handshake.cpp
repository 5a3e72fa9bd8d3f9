// The parent's end of the timed worker's requests for exclusive use of its GPU.
#include "judge/exclusive_handshake.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.h"
#include "core/exclusive_grant.h"
#include "judge/timed_grant.h"

namespace ptxbench {

ExclusiveHandshake::ExclusiveHandshake(std::function<void()> take, std::function<void()> give_back,
                                       std::function<int()> paused)
    : take_(std::move(take)), give_back_(std::move(give_back)), paused_(std::move(paused)) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail(std::string("socketpair for the timed worker's handshake: ") + std::strerror(errno));
  parent_ = fds[0], child_ = fds[1];
  listener_ = std::thread([this] { listen(); });
}

ExclusiveHandshake::~ExclusiveHandshake() {
  stop();  // the owner did not ask for the outcome; the use `take` acquired ends with its owner
  if (parent_ >= 0) ::close(parent_);
  close_child_end();
}

void ExclusiveHandshake::close_child_end() {
  if (child_ >= 0) ::close(child_);
  child_ = -1;
}

std::string ExclusiveHandshake::grant() {
  pause_.begin();
  try {
    if (state_ != State::clean_baseline_granted) take_();  // else the GPU is already this worker's alone
  } catch (...) {
    pause_.end();
    error_ = std::current_exception();
    state_ = State::refused;
    return "n";
  }
  pause_.end();
  const std::string token = new_grant_token();
  tokens_.push_back(token);
  const int paused = std::clamp(paused_ ? paused_() : 0, 0, 99);
  return "g" + token + char('0' + paused / 10) + char('0' + paused % 10);
}

void ExclusiveHandshake::listen() {
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(parent_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the worker ended, or stop() shut the socket
    std::string answer;
    if (c == kAskForCleanBaseline && state_ == State::shared) {
      answer = grant();
      if (state_ != State::refused) state_ = State::clean_baseline_granted;
    } else if (c == kGiveBack && state_ == State::clean_baseline_granted) {
      pause_.begin();
      try {
        if (give_back_) give_back_();
        answer = std::string(1, kSharedAgain);
        state_ = State::given_back;
      } catch (...) {
        error_ = std::current_exception();
        state_ = State::refused;
        answer = "n";
      }
      pause_.end();
    } else if (c == kAskForTiming &&
               (state_ == State::shared || state_ == State::clean_baseline_granted || state_ == State::given_back)) {
      answer = grant();
      if (state_ != State::refused) {
        state_ = State::timing_granted;
        timing_token_ = tokens_.back();
      }
    } else {
      // Out of order, or after the timing grant: never served, and kept (the first few).
      if (state_ != State::refused && misuse_.size() < 200) {
        const char* when = state_ == State::timing_granted           ? "after the timing grant"
                           : state_ == State::given_back             ? "after the give-back"
                           : state_ == State::clean_baseline_granted ? "during the clean-baseline grant"
                                                                     : "before any request";
        const bool printable = c >= 0x20 && c < 0x7f;
        misuse_ +=
            (misuse_.empty() ? "" : ", ") +
            (printable ? "'" + std::string(1, c) + "'" : "byte " + std::to_string(int(static_cast<unsigned char>(c)))) +
            " " + when;
      }
      continue;
    }
    (void)!::send(parent_, answer.data(), answer.size(), MSG_NOSIGNAL);  // the worker may be gone: never SIGPIPE
  }
}

void ExclusiveHandshake::stop() {
  if (stopped_) return;
  stopped_ = true;
  ::shutdown(parent_, SHUT_RDWR);  // wakes the listener's read
  if (listener_.joinable()) listener_.join();
}

void ExclusiveHandshake::finish() {
  stop();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace ptxbench

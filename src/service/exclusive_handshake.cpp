#include "service/exclusive_handshake.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.h"

namespace ptxbench {

ExclusiveHandshake::ExclusiveHandshake(std::function<void()> take, std::string token)
    : take_(std::move(take)), token_(std::move(token)) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail(std::string("socketpair for the timed worker's handshake: ") + std::strerror(errno));
  parent_ = fds[0], child_ = fds[1];
  listener_ = std::thread([this] { listen(); });
}

ExclusiveHandshake::~ExclusiveHandshake() {
  try {
    finish();
  } catch (...) {
    // The owner did not ask for the outcome; the use `take` acquired ends with its owner.
  }
  if (parent_ >= 0) ::close(parent_);
  close_child_end();
}

void ExclusiveHandshake::close_child_end() {
  if (child_ >= 0) ::close(child_);
  child_ = -1;
}

void ExclusiveHandshake::listen() {
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(parent_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the worker ended, or finish() shut the socket
    if (requested_) continue;  // one request is served; anything later is ignored
    requested_ = true;
    std::string answer = "g" + token_;
    pause_.begin();
    try {
      take_();
    } catch (...) {
      error_ = std::current_exception();
      answer = "n";
    }
    pause_.end();
    (void)!::send(parent_, answer.data(), answer.size(), MSG_NOSIGNAL);  // the worker may be gone: never SIGPIPE
  }
}

void ExclusiveHandshake::finish() {
  if (!finished_) {
    finished_ = true;
    ::shutdown(parent_, SHUT_RDWR);  // wakes the listener's read
    if (listener_.joinable()) listener_.join();
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace ptxbench

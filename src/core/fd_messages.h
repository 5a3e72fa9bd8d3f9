// One JSON message, with at most one file descriptor beside it, over a SOCK_SEQPACKET Unix socket
// (message boundaries kept, SCM_RIGHTS for the descriptor), and sealed memory files to carry bulk
// bytes between processes without a path. Used by the reference pool (judge/reference_session.h
// and runner/reference_client.h). Errors throw Error with what failed.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "core/json.h"

namespace ptxbench {

// An owned file descriptor (closed when it goes).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

inline constexpr size_t kMaxFdMessageBytes = 4096;

// A connected SOCK_SEQPACKET pair (close-on-exec): {parent's end, child's end}.
std::pair<UniqueFd, UniqueFd> seqpacket_pair();

// Sends `message` (at most kMaxFdMessageBytes once dumped) and `fd` when it is >= 0. Never SIGPIPE.
void send_message(int socket, const json& message, int fd = -1);

struct ReceivedMessage {
  json message;
  UniqueFd fd;  // empty when none came with it
};
// Blocks for one message; nullopt when the peer closed. A message that is not a JSON object, or
// carries more than one descriptor, throws (any descriptors that came are closed).
std::optional<ReceivedMessage> receive_message(int socket);

// A memory file holding `bytes` written by `fill(data)`, then sealed against any further write,
// growth or shrinking, so whoever receives it can only read what the writer put there.
UniqueFd sealed_memory_file(const std::string& name, size_t bytes, void (*fill)(void* data, size_t bytes, void* ctx),
                            void* ctx);
// Whether `fd` is a memory file sealed that way, of exactly `bytes`; "" = yes, else why not.
std::string why_not_sealed(int fd, size_t bytes);

// A read-only mapping of a whole file (unmapped when it goes).
class ReadOnlyMapping {
 public:
  ReadOnlyMapping(int fd, size_t bytes);
  ~ReadOnlyMapping();
  ReadOnlyMapping(const ReadOnlyMapping&) = delete;
  ReadOnlyMapping& operator=(const ReadOnlyMapping&) = delete;
  const void* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace ptxbench

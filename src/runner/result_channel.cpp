// The worker's signed, numbered JSON report lines on its private pipe.
#include "runner/result_channel.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "core/error.h"
#include "runner/channel_mac.h"

namespace ptxbench {
namespace {

// Writes all of [p, p+n) (a pipe write of up to PIPE_BUF bytes is one atomic write).
void write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the parent is gone; nothing to report to
    p += w;
    n -= static_cast<size_t>(w);
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ResultChannel::ResultChannel(int fd) : fd_(fd) {
  if (fd_ < 0) return;
  unsigned short r = 0;
  if (getrandom(&r, sizeof r, 0) != sizeof r) r = static_cast<unsigned short>(getpid());
  int high = fcntl(fd_, F_DUPFD_CLOEXEC, 100 + r % 900);
  if (high >= 0) {
    close(fd_);
    fd_ = high;
  }
}

void ResultChannel::set_key(const std::string& hex) {
  if (hex.size() % 2 || hex.size() / 2 > sizeof key_ || hex.empty())
    throw InputError("job: channel_key must be 2 to 128 hex digits");
  for (size_t i = 0; i < hex.size() / 2; ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw InputError("job: channel_key is not hex");
    key_[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  key_len_ = hex.size() / 2;
}

std::string ResultChannel::sign(std::string_view prefix, std::string_view text) {
  std::lock_guard lock(mu_);
  if (!key_len_) return "-";
  char hex[64];
  hmac_sha256_hex(key_, key_len_, prefix.data(), prefix.size(), text.data(), text.size(), hex);
  return std::string(hex, sizeof hex);
}

void ResultChannel::write_line(const char* json_text, size_t len) {
  // "<hmac> <seq> <json>\n"; the HMAC covers "<seq> <json>".
  char head[96];
  const uint64_t seq = seq_.fetch_add(1);
  char digits[24];
  int nd = 0;
  uint64_t v = seq;
  do {
    digits[nd++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  char seq_text[24];
  for (int i = 0; i < nd; ++i) seq_text[i] = digits[nd - 1 - i];
  seq_text[nd] = ' ';
  size_t h = 0;
  if (key_len_) {
    hmac_sha256_hex(key_, key_len_, seq_text, static_cast<size_t>(nd + 1), json_text, len, head);
    h = 64;
  } else {
    head[h++] = '-';
  }
  head[h++] = ' ';
  for (int i = 0; i <= nd; ++i) head[h++] = seq_text[i];
  if (fd_ < 0) {
    write_all(2, head, h), write_all(2, json_text, len), write_all(2, "\n", 1);
    return;
  }
  // One write where the line fits a pipe's atomic size, so no other writer can split it.
  static thread_local char small[4096];
  if (h + len + 1 <= sizeof small) {
    for (size_t i = 0; i < h; ++i) small[i] = head[i];
    for (size_t i = 0; i < len; ++i) small[h + i] = json_text[i];
    small[h + len] = '\n';
    write_all(fd_, small, h + len + 1);
  } else {
    write_all(fd_, head, h), write_all(fd_, json_text, len), write_all(fd_, "\n", 1);
  }
}

void ResultChannel::emit(const json& event) {
  const std::string text = event.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mu_);
  write_line(text.data(), text.size());
}

void ResultChannel::emit_from_signal(const char* json_text, size_t len) { write_line(json_text, len); }

void ResultChannel::fatal_and_exit(const std::string& verdict, const std::string& message, int code) {
  emit({{"type", "fatal"}, {"verdict", verdict}, {"message", message}});
  _exit(code);
}

}  // namespace ptxbench

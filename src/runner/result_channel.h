// The worker's report to its parent: JSON lines on a private pipe, never on stdout/stderr (which
// belong to the candidate). Each line is `<hmac> <seq> <json>`: a sequence number from 0 and an
// HMAC-SHA256 over "<seq> <json>" with the job's key, which the worker reads from its job file
// (deleted before the candidate is loaded) and keeps only in memory. The parent accepts only
// lines that verify, in order, once each (judge/result_lines). Safe to call from the watchdog
// thread; emit_from_signal() from a signal handler.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "core/json.h"

namespace ptxbench {

class ResultChannel {
 public:
  explicit ResultChannel(int fd);  // moves the pipe to a random high descriptor
  // The job's key (hex). Until it is set, lines carry "-" instead of an HMAC (the parent rejects them).
  void set_key(const std::string& hex);
  void emit(const json& event);
  // Last words before the process ends: a fatal event, then _exit(code) without unwinding.
  [[noreturn]] void fatal_and_exit(const std::string& verdict, const std::string& message, int code);
  // One signed line from a signal handler (no allocation, no lock); `json` is a complete object.
  void emit_from_signal(const char* json_text, size_t len);
  int descriptor() const { return fd_; }
  // HMAC-SHA256 of `prefix` + `text` with the job's key, as 64 hex digits ("-" before the key is set):
  // for what the worker signs beside this channel (a shared worker's pause report, core/shared_pause.h).
  std::string sign(std::string_view prefix, std::string_view text);

 private:
  void write_line(const char* json_text, size_t len);
  int fd_;
  std::mutex mu_;
  uint8_t key_[64] = {};
  size_t key_len_ = 0;
  std::atomic<uint64_t> seq_{0};
};

}  // namespace ptxbench

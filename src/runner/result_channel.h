// The worker's report to its parent: JSON lines on a private pipe, never on stdout/stderr (which
// belong to the candidate). Safe to call from the watchdog thread.
#pragma once
#include <mutex>

#include "core/json.h"

namespace ptxbench {

class ResultChannel {
 public:
  explicit ResultChannel(int fd);  // moves the pipe to an unremarkable high descriptor
  void emit(const json& event);
  // Last words before the process ends: a fatal event, then _exit(code) without unwinding.
  [[noreturn]] void fatal_and_exit(const std::string& verdict, const std::string& message, int code);

 private:
  int fd_;
  std::mutex mu_;
};

}  // namespace ptxbench

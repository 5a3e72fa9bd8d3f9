// Runs a child process with a wall-clock limit, capturing its output, and optionally a private
// result channel: a pipe the child sees as a numbered file descriptor, separate from its stdout.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench {

struct ProcessOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::optional<int> result_fd;          // child fd number that receives the result pipe's write end
  std::vector<std::string> extra_env;    // "NAME=value" entries added to the environment
  std::string working_dir;               // empty: inherit
  size_t max_output_bytes = 1 << 20;     // per stream; the rest is counted, not kept
};

struct ProcessResult {
  int exit_code = -1;        // valid when exited
  int term_signal = 0;       // non-zero when killed by a signal
  bool exited = false;
  bool timed_out = false;
  double seconds = 0;
  std::string out;
  std::string err;
  std::string result;        // bytes the child wrote to the result channel
  size_t dropped_bytes = 0;  // output beyond max_output_bytes

  bool ok() const { return exited && exit_code == 0 && !timed_out; }
  std::string describe() const;  // "exit 3", "killed by SIGSEGV", "timed out after 10.0 s"
};

// Throws Error when the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

std::string shell_quote(const std::string& s);
std::string join_command(const std::vector<std::string>& argv);

}  // namespace ptxbench

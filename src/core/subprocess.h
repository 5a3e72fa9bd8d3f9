// Runs a child process with a hard wall-clock limit, capturing its output, and optionally a private
// result channel: a pipe the child sees as a numbered file descriptor, separate from its stdout.
// The limit holds whatever the child does with its descriptors (it is watched through a pidfd, or
// by polling waitpid where pidfds are missing); at the limit its whole process group is killed.
#pragma once
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench {

// Time a child spends waiting on its parent (the timed worker waiting for its GPU to be free of
// other work) that its deadline does not count. begin()/end() from any thread.
class DeadlinePause {
 public:
  void begin();
  void end();
  std::chrono::nanoseconds paused(std::chrono::steady_clock::time_point now) const;  // in total, up to now

 private:
  mutable std::mutex mu_;
  bool active_ = false;
  std::chrono::steady_clock::time_point since_{};
  std::chrono::nanoseconds total_{0};
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::optional<int> result_fd;  // child fd number that receives the result pipe's write end
  // Further descriptors the child inherits: (descriptor here, its number in the child). The
  // caller keeps and closes its own copies.
  std::vector<std::pair<int, int>> pass_fds;
  const DeadlinePause* pause = nullptr;        // set: the timeout counts only time outside its pauses
  const DeadlinePause* also_paused = nullptr;  // a second source of pauses (both are taken out)
  std::vector<std::string> extra_env;          // "NAME=value" entries added to the environment
  // When set, exactly this environment ("NAME=value"; extra_env is added to it), nothing inherited.
  std::optional<std::vector<std::string>> environment;
  std::vector<std::pair<int, unsigned long long>> rlimits;  // (RLIMIT_*, value) set in the child before exec
  bool no_new_privs = false;                                // PR_SET_NO_NEW_PRIVS in the child before exec
  std::string working_dir;                                  // empty: inherit
  size_t max_output_bytes = 1 << 20;                        // per stream; the rest is counted, not kept
};

struct ProcessResult {
  int exit_code = -1;   // valid when exited
  int term_signal = 0;  // non-zero when killed by a signal
  bool exited = false;
  bool timed_out = false;
  double seconds = 0;
  std::string out;
  std::string err;
  std::string result;             // bytes the child wrote to the result channel
  size_t dropped_bytes = 0;       // output beyond max_output_bytes
  bool result_truncated = false;  // the child was killed (timeout/signal) while its last result line was unfinished
  bool unreaped = false;          // killed at the deadline but still not gone 10 s later (stuck in the kernel)

  bool ok() const { return exited && exit_code == 0 && !timed_out; }
  std::string describe() const;  // "exit 3", "killed by SIGSEGV", "timed out after 10.0 s"
};

// Throws Error when the process cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

std::string shell_quote(const std::string& s);
std::string join_command(const std::vector<std::string>& argv);

}  // namespace ptxbench

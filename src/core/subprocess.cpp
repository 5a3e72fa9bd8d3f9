#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/error.h"

extern char** environ;

namespace ptxbench {
namespace {

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() {
    if (pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe2: ") + std::strerror(errno));
  }
  ~Pipe() { close_both(); }
  void close_read() { if (fds[0] >= 0) { ::close(fds[0]); fds[0] = -1; } }
  void close_write() { if (fds[1] >= 0) { ::close(fds[1]); fds[1] = -1; } }
  void close_both() { close_read(); close_write(); }
};

void append_bounded(std::string& dst, const char* data, size_t n, size_t limit, size_t& dropped) {
  size_t room = dst.size() < limit ? limit - dst.size() : 0;
  size_t take = n < room ? n : room;
  dst.append(data, take);
  dropped += n - take;
}

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) return "timed out after " + std::to_string(seconds).substr(0, 6) + " s";
  if (term_signal) return std::string("killed by signal ") + strsignal(term_signal);
  if (exited) return "exit " + std::to_string(exit_code);
  return "unknown state";
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) fail("run_process: empty command");
  Pipe out, err, res;
  const auto start = std::chrono::steady_clock::now();

  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
  for (const auto& e : options.extra_env) env_store.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);  // own process group, so a timeout kills the whole tree
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out.fds[1], 1);
    dup2(err.fds[1], 2);
    if (options.result_fd) dup2(res.fds[1], *options.result_fd);  // dup2 clears CLOEXEC
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(126);
    execvpe(args[0], args.data(), envp.data());
    dprintf(2, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  out.close_write();
  err.close_write();
  res.close_write();

  ProcessResult r;
  std::array<pollfd, 3> pfds{{{out.fds[0], POLLIN, 0}, {err.fds[0], POLLIN, 0}, {res.fds[0], POLLIN, 0}}};
  std::array<std::string*, 3> sinks{&r.out, &r.err, &r.result};
  const auto deadline = start + options.timeout;
  int open_fds = 3;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) { r.timed_out = true; break; }
    int n = poll(pfds.data(), pfds.size(), static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    for (size_t i = 0; i < pfds.size(); ++i) {
      if (pfds[i].fd < 0 || !(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(pfds[i].fd, buf, sizeof buf);
      if (got > 0) {
        // The result channel is never truncated: a lost result is worse than a large one.
        size_t limit = i == 2 ? std::string::npos : options.max_output_bytes;
        append_bounded(*sinks[i], buf, static_cast<size_t>(got), limit, r.dropped_bytes);
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        pfds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (r.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  // After the pipes close the child may still be exiting; a timed-out one is reaped after SIGKILL.
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  kill(-pid, SIGKILL);  // leftovers in the group (e.g. a sanitizer's helper) never outlive a job
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) { r.exited = !r.timed_out; r.exit_code = WEXITSTATUS(status); }
  if (WIFSIGNALED(status) && !r.timed_out) r.term_signal = WTERMSIG(status);
  return r;
}

}  // namespace ptxbench

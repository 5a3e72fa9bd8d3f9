// Runs a child process with a hard wall-clock limit, its output captured, with an optional result pipe.
#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "core/error.h"

extern char** environ;

namespace ptxbench {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() {
    if (pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe2: ") + std::strerror(errno));
  }
  ~Pipe() { close_both(); }
  void close_read() {
    if (fds[0] >= 0) {
      ::close(fds[0]);
      fds[0] = -1;
    }
  }
  void close_write() {
    if (fds[1] >= 0) {
      ::close(fds[1]);
      fds[1] = -1;
    }
  }
  void close_both() {
    close_read();
    close_write();
  }
};

void append_bounded(std::string& dst, const char* data, size_t n, size_t limit, size_t& dropped) {
  size_t room = dst.size() < limit ? limit - dst.size() : 0;
  size_t take = n < room ? n : room;
  dst.append(data, take);
  dropped += n - take;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// The child's exit, without blocking; true once it has been reaped into `status`.
bool try_reap(pid_t pid, int& status) {
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno == EINTR) continue;
    return r < 0;  // ECHILD: nothing left to wait for
  }
}

// After SIGKILL: wait for the child, at most `limit` (a process stuck in a driver call may not die).
bool reap_within(pid_t pid, int pidfd, int& status, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (!try_reap(pid, status)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    } else {
      usleep(10000);
    }
  }
  return true;
}

}  // namespace

void DeadlinePause::begin() {
  std::lock_guard lock(mu_);
  if (!active_) active_ = true, since_ = Clock::now();
}

void DeadlinePause::end() {
  std::lock_guard lock(mu_);
  if (active_) active_ = false, total_ += Clock::now() - since_;
}

std::chrono::nanoseconds DeadlinePause::paused(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  return total_ + (active_ ? now - since_ : std::chrono::nanoseconds(0));
}

std::string ProcessResult::describe() const {
  if (timed_out)
    return "timed out after " + std::to_string(seconds).substr(0, 6) + " s" +
           (unreaped ? " (and could not be reaped)" : "");
  if (term_signal) return std::string("killed by signal ") + strsignal(term_signal);
  if (exited) return "exit " + std::to_string(exit_code);
  return "unknown state";
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shell_quote(a);
  }
  return s;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) fail("run_process: empty command");
  if (options.pass_fds.size() > 16) fail("run_process: at most 16 passed descriptors");
  Pipe out, err, res;
  const auto start = Clock::now();

  std::vector<std::string> env_store;
  if (options.environment) env_store = *options.environment;
  else
    for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
  for (const auto& e : options.extra_env) env_store.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::pair<int, rlimit>> limits;
  for (const auto& [resource, value] : options.rlimits) limits.push_back({resource, rlimit{value, value}});

  pid_t pid = fork();
  if (pid < 0) fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls from here on (the parent may have other threads).
    setpgid(0, 0);  // own process group, so a timeout kills the whole tree
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out.fds[1], 1);
    dup2(err.fds[1], 2);
    // Every passed descriptor goes above the numbers it may be given first, so that no dup2 below
    // overwrites a source still to be moved; dup2 clears CLOEXEC.
    int moved[16];
    const size_t passed = options.pass_fds.size() < 16 ? options.pass_fds.size() : 16;
    for (size_t i = 0; i < passed; ++i) moved[i] = fcntl(options.pass_fds[i].first, F_DUPFD_CLOEXEC, 256);
    if (options.result_fd) dup2(res.fds[1], *options.result_fd);
    for (size_t i = 0; i < passed; ++i)
      if (moved[i] < 0 || dup2(moved[i], options.pass_fds[i].second) < 0) _exit(126);
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(126);
    for (const auto& [resource, limit] : limits)
      if (setrlimit(resource, &limit) != 0) {
        static const char msg[] = "cannot set a resource limit\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(126);
      }
    if (options.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(126);
    execvpe(args[0], args.data(), envp.data());
    dprintf(2, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  out.close_write();
  err.close_write();
  res.close_write();
  const int pidfd = open_pidfd(pid);

  ProcessResult r;
  std::array<pollfd, 4> pfds{
      {{out.fds[0], POLLIN, 0}, {err.fds[0], POLLIN, 0}, {res.fds[0], POLLIN, 0}, {pidfd, POLLIN, 0}}};
  std::array<std::string*, 3> sinks{&r.out, &r.err, &r.result};
  const auto limit = start + options.timeout;
  auto deadline = limit;
  int open_pipes = 3, status = 0;
  bool reaped = false;
  Clock::time_point drain_until{};
  char buf[65536];
  // Until the child has exited and its pipes are closed; a child that closes its pipes and runs on
  // is still watched through the pidfd (or polled), so the deadline always holds.
  while (!reaped || open_pipes > 0) {
    const auto now = Clock::now();
    if (options.pause) deadline = limit + std::chrono::duration_cast<Clock::duration>(options.pause->paused(now));
    if (options.also_paused) deadline += std::chrono::duration_cast<Clock::duration>(options.also_paused->paused(now));
    if (!reaped && now >= deadline) {
      r.timed_out = true;
      break;
    }
    if (reaped && now >= drain_until) break;
    const auto until = reaped ? drain_until : deadline;
    long long wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
    if (pidfd < 0 && !reaped) wait_ms = std::min<long long>(wait_ms, 20);
    const int n = poll(pfds.data(), pfds.size(), static_cast<int>(std::min<long long>(wait_ms, 1000)));
    if (n < 0 && errno != EINTR) break;
    for (size_t i = 0; i < 3; ++i) {
      if (pfds[i].fd < 0 || !(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(pfds[i].fd, buf, sizeof buf);
      if (got > 0) {
        // The result channel is never truncated: a lost result is worse than a large one.
        const size_t sink_limit = i == 2 ? std::string::npos : options.max_output_bytes;
        append_bounded(*sinks[i], buf, static_cast<size_t>(got), sink_limit, r.dropped_bytes);
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        pfds[i].fd = -1;
        --open_pipes;
      }
    }
    if (!reaped && (pidfd < 0 || (pfds[3].revents & POLLIN)) && try_reap(pid, status)) {
      reaped = true;
      pfds[3].fd = -1;
      // Leftovers in the group (e.g. a sanitizer's helper) never outlive a job; what they and the
      // child already wrote is still read, for a moment.
      kill(-pid, SIGKILL);
      drain_until = Clock::now() + std::chrono::seconds(2);
    }
  }
  if (!reaped) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);  // also when it left its process group
    reaped = reap_within(pid, pidfd, status, std::chrono::seconds(10));
    r.unreaped = !reaped;
  }
  if (pidfd >= 0) close(pidfd);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (reaped && WIFEXITED(status)) {
    r.exited = !r.timed_out;
    r.exit_code = WEXITSTATUS(status);
  }
  if (reaped && WIFSIGNALED(status) && !r.timed_out) r.term_signal = WTERMSIG(status);
  r.result_truncated = (r.timed_out || r.term_signal) && !r.result.empty() && r.result.back() != '\n';
  return r;
}

}  // namespace ptxbench

// The processes of the Redis fault tests: spawning the worker and submitter harnesses (optionally
// inside a network namespace), kill -9, SIGSTOP/SIGCONT, and waiting with a deadline.
#pragma once
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "redis_server.h"

namespace ptxbench::test {

inline const std::filesystem::path kBin = PTXBENCH_BIN_DIR;

inline pid_t spawn(std::vector<std::string> argv, const std::string& netns = "") {
  if (!netns.empty()) argv.insert(argv.begin(), {"/usr/sbin/ip", "netns", "exec", netns});
  return spawn_process(std::move(argv));
}

inline pid_t spawn_worker(const std::string& url, const std::filesystem::path& dir, const std::filesystem::path& log,
                          int lease_ms, const std::string& netns = "") {
  return spawn({(kBin / "service_redis_worker").string(), "--queue", url, "--fake-worker",
                (kBin / "ptxbench-fake-gpu-worker").string(), "--dir", dir.string(), "--stored-log", log.string(),
                "--lease-ms", std::to_string(lease_ms)},
               netns);
}

// Each job's simulated GPU stages take `ms` each (the shared one, then the timed one).
inline pid_t spawn_submitter(const std::string& url, int jobs, const std::string& prefix,
                             const std::filesystem::path& db, int ms) {
  return spawn({(kBin / "service_redis_submitter").string(), "--queue", url, "--jobs", std::to_string(jobs), "--prefix",
                prefix, "--db", db.string(), "--ms", std::to_string(ms)});
}

// The exit status (128 + signal when killed); -1 when it is still running at the deadline.
inline int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() > deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

inline void kill_nine(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace ptxbench::test

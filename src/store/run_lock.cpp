// One process per run: an exclusive flock on <workspace>/locks/<run>.lock, naming the holder when refused.
#include "store/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ptxbench {

RunLock::RunLock(const std::filesystem::path& workspace, const std::string& run_id) {
  const auto dir = workspace / "locks";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto path = dir / (run_id + ".lock");
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error_ = "cannot open " + path.string() + ": " + std::strerror(errno);
    return;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {0};
    [[maybe_unused]] auto n = pread(fd, pid, sizeof pid - 1, 0);
    error_ = "run '" + run_id + "' is in use by another ptxbench process (pid " + (pid[0] ? std::string(pid) : "?") +
             "); wait for it to end or stop it (it resumes later)";
    close(fd);
    return;
  }
  const std::string me = std::to_string(getpid());
  if (ftruncate(fd, 0) == 0 && pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The pid is only informative (for the refusal message); the lock holds without it.
  }
  fd_ = fd;
}

RunLock::~RunLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

}  // namespace ptxbench

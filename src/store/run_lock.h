// One process at a time per run: an exclusive flock on <workspace>/locks/<run>.lock, released by
// the kernel when the process ends (kill -9 included), so a stale lock never blocks a resume.
// A second `ptxbench run` (or `rescore`) of the same run is refused, naming the holder's pid.
#pragma once
#include <filesystem>
#include <string>

namespace ptxbench {

class RunLock {
 public:
  RunLock(const std::filesystem::path& workspace, const std::string& run_id);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  bool held() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }  // why it is not held

 private:
  int fd_ = -1;
  std::string error_;
};

}  // namespace ptxbench

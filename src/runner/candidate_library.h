// The candidate's shared object, loaded into the worker, and its entry point.
#pragma once
#include <filesystem>
#include <string>

namespace ptxbench {

class CandidateLibrary {
 public:
  // Throws Error naming the file and the loader's message when it cannot be loaded or lacks `entry`.
  CandidateLibrary(const std::filesystem::path& so, const std::string& entry);
  ~CandidateLibrary();
  CandidateLibrary(const CandidateLibrary&) = delete;
  CandidateLibrary& operator=(const CandidateLibrary&) = delete;
  void* entry() const { return entry_; }

 private:
  void* handle_ = nullptr;
  void* entry_ = nullptr;
};

}  // namespace ptxbench

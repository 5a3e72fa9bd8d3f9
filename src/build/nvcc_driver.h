// Builds a candidate .cu into a shared object with nvcc under a time limit, keeping the PTX and
// the compiler's diagnostics (trimmed and structured).
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;          // 0 when the compiler gave none
  std::string severity;    // error, warning, remark, fatal
  std::string message;
};

struct BuildOptions {
  std::string arch = "sm_90a";                    // sm_90a or sm_100a
  std::vector<std::filesystem::path> include_dirs;  // the problem folder, knowledge packs
  std::chrono::seconds timeout{180};
  std::filesystem::path nvcc;                     // empty: find_nvcc()
};

struct BuildResult {
  bool ok = false;
  bool timed_out = false;
  double seconds = 0;
  std::string command;                   // the exact command line run
  std::string log;                       // compiler output, trimmed to a readable size
  std::vector<Diagnostic> diagnostics;   // errors first, at most 50
  std::filesystem::path shared_object;   // valid when ok
  std::filesystem::path ptx;             // the kept PTX (empty if none was produced)
};

// The nvcc flags every candidate is built with, pinned in one place (nvcc_flags.cpp).
std::vector<std::string> candidate_nvcc_flags(const std::string& arch);

std::filesystem::path find_nvcc();  // $PTXBENCH_NVCC, PATH, /usr/local/cuda/bin/nvcc; empty when none

// Throws InputError when the source does not exist; a failed compile is a result, not a throw.
BuildResult build_candidate(const std::filesystem::path& source, const std::filesystem::path& out_dir,
                            const BuildOptions& options);

// Parses nvcc / cudafe / ptxas / host compiler output into diagnostics.
std::vector<Diagnostic> parse_diagnostics(const std::string& log);

}  // namespace ptxbench

// nvcc options a candidate may opt into on its first line, from a short allowlist, e.g.
//   // ptxbench-nvcc-options: -std=c++20 --expt-extended-lambda -DNDEBUG
// (real public kernels need them: ThunderKittens C++20 and extended lambdas, fast.cu NDEBUG).
// They are recorded with the build.
#pragma once
#include <string>
#include <vector>

namespace ptxbench {

inline constexpr const char* kCandidateOptionsPrefix = "// ptxbench-nvcc-options:";

struct CandidateOptions {
  std::vector<std::string> flags;  // in the order given, each from allowed_candidate_options()
  std::string error;               // "line 1: ..." when the line asks for anything else
};

const std::vector<std::string>& allowed_candidate_options();

// Reads the first line of `source`; no opt-in line: no flags, no error.
CandidateOptions parse_candidate_options(const std::string& source);

}  // namespace ptxbench

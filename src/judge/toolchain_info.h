// What the harness builds candidates with, for prompts and run provenance: the exact nvcc command
// shape per arch (from the pinned flags in compile/nvcc_flags.cpp) and the installed nvcc's version.
#pragma once
#include <string>
#include <vector>

namespace ptxbench {

// The flags every candidate is built with for `arch` (throws InputError for an unknown arch).
std::vector<std::string> candidate_build_flags(const std::string& arch);
// "nvcc <flags> ... -o candidate.so candidate.cu" as a model should read it.
std::string candidate_build_line(const std::string& arch);
// "13.0.88 (Cuda compilation tools, release 13.0, V13.0.88)", or "none (nvcc not found)".
std::string nvcc_version();

}  // namespace ptxbench

// The shared object the worker loads for a Triton candidate: it defines the problem's C entry
// (the prototype is read from the problem's interface.h) and forwards every call, its arguments
// as integers and the stream last, to the worker's Triton session (ptxbench_triton_call, defined by
// ptxbench-worker: src/runner/triton/triton_session.h). The worker then treats it as it treats a
// CUDA candidate's shared object. Generated and compiled per evaluation: the judge's code, not
// the candidate's (nothing of the candidate is in it).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench {

struct CParameter {
  std::string type;  // as written: "const __nv_bfloat16*", "int", "size_t", "cudaStream_t"
  std::string name;
  bool pointer() const { return type.find('*') != std::string::npos || type == "cudaStream_t"; }
};

// The parameters of `entry`'s prototype in `interface_h`; throws InputError naming the file when
// there is none or a parameter cannot be read.
std::vector<CParameter> entry_parameters(const std::filesystem::path& interface_h, const std::string& entry);

// The shim's C++ source.
std::string triton_shim_source(const std::string& entry, const std::vector<CParameter>& parameters);

// Writes and compiles the shim for `entry` of the problem in `problem_dir` to `out_so` with the host
// C++ compiler (g++, or $PTXBENCH_CXX). "" when built, else the compiler's first lines.
std::string build_triton_shim(const std::filesystem::path& problem_dir, const std::string& entry,
                              const std::filesystem::path& out_so);

}  // namespace ptxbench

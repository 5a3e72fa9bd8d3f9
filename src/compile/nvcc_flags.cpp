// The pinned nvcc flags a candidate is built with per arch, and where nvcc is found.
#include <algorithm>
#include <cstdlib>

#include "compile/nvcc_driver.h"
#include "compile/tool_paths.h"
#include "core/error.h"

namespace ptxbench {

std::vector<std::string> candidate_nvcc_flags(const std::string& arch, const std::vector<std::string>& extra) {
  std::string gencode;
  if (arch == "sm_90a") {
    gencode = "-gencode=arch=compute_90a,code=sm_90a";
  } else if (arch == "sm_100a") {
    gencode = "-gencode=arch=compute_100a,code=sm_100a";
  } else {
    throw InputError("unknown target architecture '" + arch + "' (expected sm_90a or sm_100a)");
  }
  const bool cxx20 = std::find(extra.begin(), extra.end(), "-std=c++20") != extra.end();
  // -lcuda: candidates may call the driver API (e.g. cuTensorMapEncodeTiled for TMA descriptors).
  std::vector<std::string> flags{cxx20 ? "-std=c++20" : "-std=c++17",
                                 "-O3",
                                 "-shared",
                                 "-Xcompiler",
                                 "-fPIC",
                                 "-cudart",
                                 "shared",
                                 gencode,
                                 "-lineinfo",
                                 "-lcuda"};
  for (const auto& e : extra)
    if (e != "-std=c++20") flags.push_back(e);
  return flags;
}

std::filesystem::path find_nvcc() {
  if (const char* env = std::getenv("PTXBENCH_NVCC"); env && *env) return env;
  if (auto in_path = find_in_path("nvcc"); !in_path.empty()) return in_path;
  if (std::filesystem::path cuda = "/usr/local/cuda/bin/nvcc"; is_executable(cuda)) return cuda;
  return {};
}

}  // namespace ptxbench

#include <cstdlib>

#include "build/nvcc_driver.h"
#include "build/tool_paths.h"
#include "core/error.h"

namespace ptxbench {

std::vector<std::string> candidate_nvcc_flags(const std::string& arch) {
  std::string gencode;
  if (arch == "sm_90a") {
    gencode = "-gencode=arch=compute_90a,code=sm_90a";
  } else if (arch == "sm_100a") {
    gencode = "-gencode=arch=compute_100a,code=sm_100a";
  } else {
    throw InputError("unknown target architecture '" + arch + "' (expected sm_90a or sm_100a)");
  }
  // -lcuda: candidates may call the driver API (e.g. cuTensorMapEncodeTiled for TMA descriptors).
  return {"-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", gencode,
          "-lineinfo", "-lcuda"};
}

std::filesystem::path find_nvcc() {
  if (const char* env = std::getenv("PTXBENCH_NVCC"); env && *env) return env;
  if (auto in_path = find_in_path("nvcc"); !in_path.empty()) return in_path;
  if (std::filesystem::path cuda = "/usr/local/cuda/bin/nvcc"; is_executable(cuda)) return cuda;
  return {};
}

}  // namespace ptxbench

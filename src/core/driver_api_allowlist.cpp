// The CUDA driver API a candidate may reach, however it reaches it: the import check's and the runtime's list.
#include "core/driver_api_allowlist.h"

#include <array>
#include <cctype>

namespace ptxbench {
namespace {

constexpr std::array<std::string_view, 24> kAllowed{
    "cuTensorMapEncodeTiled",
    "cuTensorMapEncodeIm2col",
    "cuTensorMapEncodeIm2colWide",
    "cuTensorMapReplaceAddress",
    "cuGetErrorString",
    "cuGetErrorName",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetCount",
    "cuCtxGetCurrent",
    "cuCtxGetDevice",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuKernelGetAttribute",
    "cuKernelSetAttribute",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cuLaunchCooperativeKernel",
    "cuOccupancyMaxActiveClusters",
    "cuOccupancyMaxPotentialClusterSize",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuPointerGetAttribute",
    "cuFuncGetName",
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string driver_api_base_name(std::string_view name) {
  std::string n(name.substr(0, name.find('@')));
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view suffix : {"_ptsz", "_ptds"})
      if (n.size() > suffix.size() && n.ends_with(suffix)) n.resize(n.size() - suffix.size()), changed = true;
    const size_t v = n.rfind("_v");
    if (v != std::string::npos && v > 0 && all_digits(std::string_view(n).substr(v + 2))) n.resize(v), changed = true;
  }
  return n;
}

bool driver_api_allowed(std::string_view name) {
  const std::string base = driver_api_base_name(name);
  for (auto allowed : kAllowed)
    if (base == allowed) return true;
  return false;
}

bool driver_api_importable(std::string_view name) {
  return driver_api_allowed(name) || driver_api_base_name(name) == "cuGetProcAddress";
}

bool is_driver_api_name(std::string_view name) {
  return name.size() > 2 && name.starts_with("cu") && std::isupper(static_cast<unsigned char>(name[2]));
}

}  // namespace ptxbench

// The few NVML calls the service needs (utilization, ECC counts), resolved from libnvidia-ml at run time.
#include "service/health/nvml_library.h"

#include <dlfcn.h>
#include <nvml.h>

namespace ptxbench {
namespace {

// The header's declarations give the types; the symbols come from dlsym.
using Device = nvmlDevice_t;
using Utilization = nvmlUtilization_t;
using InitFn = decltype(&nvmlInit_v2);
using HandleByIndexFn = decltype(&nvmlDeviceGetHandleByIndex_v2);
using HandleByPciFn = decltype(&nvmlDeviceGetHandleByPciBusId_v2);
using UtilizationFn = decltype(&nvmlDeviceGetUtilizationRates);
using TotalEccFn = decltype(&nvmlDeviceGetTotalEccErrors);

}  // namespace

NvmlLibrary& NvmlLibrary::instance() {
  static NvmlLibrary lib;
  return lib;
}

NvmlLibrary::NvmlLibrary() {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    error_ = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(lib_, "nvmlInit_v2"));
  get_handle_by_index_ = dlsym(lib_, "nvmlDeviceGetHandleByIndex_v2");
  get_handle_by_pci_ = dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  get_utilization_ = dlsym(lib_, "nvmlDeviceGetUtilizationRates");
  get_total_ecc_ = dlsym(lib_, "nvmlDeviceGetTotalEccErrors");
  if (!init || !get_handle_by_index_ || init() != NVML_SUCCESS) {
    error_ = "nvmlInit failed";
    return;
  }
  available_ = true;
}

void* NvmlLibrary::symbol(const char* name) const { return available_ ? dlsym(lib_, name) : nullptr; }

std::optional<unsigned> NvmlLibrary::gpu_utilization_percent(unsigned index) const {
  if (!available_ || !get_utilization_) return std::nullopt;
  Device d = nullptr;
  if (reinterpret_cast<HandleByIndexFn>(get_handle_by_index_)(index, &d) != NVML_SUCCESS) return std::nullopt;
  Utilization u{};
  if (reinterpret_cast<UtilizationFn>(get_utilization_)(d, &u) != NVML_SUCCESS) return std::nullopt;
  return u.gpu;
}

std::optional<long long> NvmlLibrary::uncorrected_ecc_volatile(const std::string& pci_bus_id) const {
  if (!available_ || !get_handle_by_pci_ || !get_total_ecc_) return std::nullopt;
  Device d = nullptr;
  if (reinterpret_cast<HandleByPciFn>(get_handle_by_pci_)(pci_bus_id.c_str(), &d) != NVML_SUCCESS) return std::nullopt;
  unsigned long long n = 0;
  if (reinterpret_cast<TotalEccFn>(get_total_ecc_)(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &n) !=
      NVML_SUCCESS)
    return std::nullopt;  // ECC off or not supported
  return static_cast<long long>(n);
}

}  // namespace ptxbench

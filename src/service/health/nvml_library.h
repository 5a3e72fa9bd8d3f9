// The few NVML calls the service needs beyond runner's NvmlMonitor (utilization for the busy
// fraction, volatile ECC counts for the health probe), resolved at run time from
// libnvidia-ml.so.1 so that a host without the driver (CI) builds and runs everything else.
#pragma once
#include <optional>
#include <string>

namespace ptxbench {

class NvmlLibrary {
 public:
  static NvmlLibrary& instance();  // opened once; check available()
  bool available() const { return available_; }
  const std::string& error() const { return error_; }
  // By NVML index (the service sets CUDA_DEVICE_ORDER=PCI_BUS_ID so CUDA ordinals agree) or by
  // PCI bus id ("0000:19:00.0").
  std::optional<unsigned> gpu_utilization_percent(unsigned index) const;
  std::optional<long long> uncorrected_ecc_volatile(const std::string& pci_bus_id) const;
  // Any other NVML function by name (null when NVML or the function is missing).
  void* symbol(const char* name) const;

 private:
  NvmlLibrary();
  bool available_ = false;
  std::string error_;
  void* lib_ = nullptr;
  void* get_handle_by_index_ = nullptr;
  void* get_handle_by_pci_ = nullptr;
  void* get_utilization_ = nullptr;
  void* get_total_ecc_ = nullptr;
};

}  // namespace ptxbench

// GPU clocks, temperature, power and throttle reasons through NVML, opened at run time so that a
// host without the driver (CI) still builds and runs everything else.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct GpuState {
  bool available = false;
  std::string error;  // why not available
  unsigned sm_clock_mhz = 0, max_sm_clock_mhz = 0, mem_clock_mhz = 0;
  unsigned temperature_c = 0;
  double power_w = 0, power_limit_w = 0;
  unsigned long long reasons = 0;  // NVML clocks-event (throttle) reason bits
  std::vector<std::string> reason_names;
  bool throttled = false;  // thermal or hardware slowdown (power capping is reported, not flagged)
  json to_json() const;
};

class NvmlMonitor {
 public:
  explicit NvmlMonitor(int cuda_device = 0);
  ~NvmlMonitor();
  NvmlMonitor(const NvmlMonitor&) = delete;
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;

  GpuState read() const;
  std::string driver_version() const;
  // What a clean timing depends on besides the library (docs/library-timing-cache.md): the GPU's
  // UUID, the driver, and its clock and power state (application clocks, maximum clocks, enforced
  // power limit, persistence mode; each only where NVML answers). {gpu_uuid: "", ...} without NVML.
  json timing_environment() const;
  // Processes holding a compute context on this GPU (this one included); nullopt when NVML cannot say.
  std::optional<int> compute_processes() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace ptxbench

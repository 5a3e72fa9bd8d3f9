// GPU clocks, temperature, power and throttle reasons through NVML, opened at run time.
#include "probes/nvml_monitor.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvml.h>

#include <cstdio>

namespace ptxbench {

struct NvmlMonitor::Impl {
  void* lib = nullptr;
  nvmlDevice_t dev{};
  std::string error;
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) by_pci = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  // Deprecated in newer NVML headers, still what every driver this runs on offers (looked up by name).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  decltype(&nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&nvmlDeviceGetApplicationsClock) app_clock = nullptr;  // optional: the timing environment's
#pragma GCC diagnostic pop
  decltype(&nvmlDeviceGetPowerUsage) power = nullptr;
  decltype(&nvmlDeviceGetEnforcedPowerLimit) power_limit = nullptr;
  decltype(&nvmlDeviceGetCurrentClocksEventReasons) reasons = nullptr;
  decltype(&nvmlSystemGetDriverVersion) driver = nullptr;
  decltype(&nvmlDeviceGetComputeRunningProcesses_v3) processes = nullptr;  // optional
  // optional: the timing environment's (timing_environment)
  decltype(&nvmlDeviceGetUUID) uuid = nullptr;
  decltype(&nvmlDeviceGetPersistenceMode) persistence = nullptr;
  bool ready() const { return error.empty(); }
};

namespace {
template <typename F>
void load(void* lib, const char* name, F& f, std::string& error) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f && error.empty()) error = std::string("NVML lacks ") + name;
}
}  // namespace

NvmlMonitor::NvmlMonitor(int cuda_device) : impl_(new Impl) {
  auto& m = *impl_;
  m.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m.lib) {
    m.error = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  load(m.lib, "nvmlInit_v2", m.init, m.error);
  load(m.lib, "nvmlShutdown", m.shutdown, m.error);
  load(m.lib, "nvmlDeviceGetHandleByPciBusId_v2", m.by_pci, m.error);
  load(m.lib, "nvmlDeviceGetClockInfo", m.clock, m.error);
  load(m.lib, "nvmlDeviceGetMaxClockInfo", m.max_clock, m.error);
  load(m.lib, "nvmlDeviceGetTemperature", m.temperature, m.error);
  load(m.lib, "nvmlDeviceGetPowerUsage", m.power, m.error);
  load(m.lib, "nvmlDeviceGetEnforcedPowerLimit", m.power_limit, m.error);
  load(m.lib, "nvmlDeviceGetCurrentClocksEventReasons", m.reasons, m.error);
  load(m.lib, "nvmlSystemGetDriverVersion", m.driver, m.error);
  if (!m.ready()) return;
  m.processes = reinterpret_cast<decltype(m.processes)>(dlsym(m.lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
  m.uuid = reinterpret_cast<decltype(m.uuid)>(dlsym(m.lib, "nvmlDeviceGetUUID"));
  m.persistence = reinterpret_cast<decltype(m.persistence)>(dlsym(m.lib, "nvmlDeviceGetPersistenceMode"));
  m.app_clock = reinterpret_cast<decltype(m.app_clock)>(dlsym(m.lib, "nvmlDeviceGetApplicationsClock"));
  if (m.init() != NVML_SUCCESS) {
    m.error = "nvmlInit failed";
    return;
  }
  // NVML and CUDA number devices differently; the PCI bus id ties them together.
  char bus[64] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) {
    m.error = "no PCI bus id for the CUDA device";
    return;
  }
  if (m.by_pci(bus, &m.dev) != NVML_SUCCESS) m.error = std::string("NVML has no device at ") + bus;
}

NvmlMonitor::~NvmlMonitor() {
  if (impl_->lib && impl_->shutdown && impl_->ready()) impl_->shutdown();
  if (impl_->lib) dlclose(impl_->lib);
  delete impl_;
}

std::string NvmlMonitor::driver_version() const {
  char buf[96] = {0};
  if (!impl_->ready() || impl_->driver(buf, sizeof buf) != NVML_SUCCESS) return {};
  return buf;
}

json NvmlMonitor::timing_environment() const {
  const auto& m = *impl_;
  json clocks = json::object();
  std::string uuid;
  if (!m.ready()) return {{"gpu_uuid", ""}, {"driver", ""}, {"clocks", {{"nvml", m.error}}}};
  char buf[96] = {0};
  if (m.uuid && m.uuid(m.dev, buf, sizeof buf) == NVML_SUCCESS) uuid = buf;
  unsigned mhz = 0;
  if (m.max_clock(m.dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS) clocks["max_sm_mhz"] = mhz;
  if (m.max_clock(m.dev, NVML_CLOCK_MEM, &mhz) == NVML_SUCCESS) clocks["max_mem_mhz"] = mhz;
  if (m.app_clock && m.app_clock(m.dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS) clocks["applications_sm_mhz"] = mhz;
  if (m.app_clock && m.app_clock(m.dev, NVML_CLOCK_MEM, &mhz) == NVML_SUCCESS) clocks["applications_mem_mhz"] = mhz;
  unsigned mw = 0;
  if (m.power_limit(m.dev, &mw) == NVML_SUCCESS) clocks["power_limit_w"] = mw / 1000.0;
  nvmlEnableState_t persistent{};
  if (m.persistence && m.persistence(m.dev, &persistent) == NVML_SUCCESS)
    clocks["persistence_mode"] = persistent == NVML_FEATURE_ENABLED;
  return {{"gpu_uuid", uuid}, {"driver", driver_version()}, {"clocks", clocks}};
}

std::optional<int> NvmlMonitor::compute_processes() const {
  const auto& m = *impl_;
  if (!m.ready() || !m.processes) return std::nullopt;
  nvmlProcessInfo_t info[64];
  unsigned count = 64;
  const nvmlReturn_t r = m.processes(m.dev, &count, info);
  if (r == NVML_ERROR_INSUFFICIENT_SIZE) return 64;  // at least that many
  if (r != NVML_SUCCESS) return std::nullopt;
  return static_cast<int>(count);
}

GpuState NvmlMonitor::read() const {
  GpuState s;
  const auto& m = *impl_;
  if (!m.ready()) {
    s.error = m.error;
    return s;
  }
  s.available = true;
  m.clock(m.dev, NVML_CLOCK_SM, &s.sm_clock_mhz);
  m.max_clock(m.dev, NVML_CLOCK_SM, &s.max_sm_clock_mhz);
  m.clock(m.dev, NVML_CLOCK_MEM, &s.mem_clock_mhz);
  m.temperature(m.dev, NVML_TEMPERATURE_GPU, &s.temperature_c);
  unsigned mw = 0;
  if (m.power(m.dev, &mw) == NVML_SUCCESS) s.power_w = mw / 1000.0;
  if (m.power_limit(m.dev, &mw) == NVML_SUCCESS) s.power_limit_w = mw / 1000.0;
  m.reasons(m.dev, &s.reasons);
  struct Bit {
    unsigned long long bit;
    const char* name;
    bool throttles;
  };
  static const Bit bits[] = {
      {nvmlClocksEventReasonGpuIdle, "gpu_idle", false},
      {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting", false},
      {nvmlClocksEventReasonSwPowerCap, "sw_power_cap", false},
      {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown", true},
      {nvmlClocksEventReasonSyncBoost, "sync_boost", false},
      {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown", true},
      {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown", true},
      {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown", true},
      {nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting", false},
  };
  for (const auto& b : bits)
    if (s.reasons & b.bit) {
      s.reason_names.push_back(b.name);
      s.throttled = s.throttled || b.throttles;
    }
  return s;
}

json GpuState::to_json() const {
  if (!available) return {{"available", false}, {"error", error}};
  return {{"available", true},
          {"sm_clock_mhz", sm_clock_mhz},
          {"max_sm_clock_mhz", max_sm_clock_mhz},
          {"mem_clock_mhz", mem_clock_mhz},
          {"temperature_c", temperature_c},
          {"power_w", power_w},
          {"power_limit_w", power_limit_w},
          {"clock_event_reasons", reason_names},
          {"throttled", throttled}};
}

}  // namespace ptxbench

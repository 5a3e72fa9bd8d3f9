// Publishes a running engine's state for `ptxbench service status`: every second, the engine's
// snapshot (lanes, GPUs, health, counters, recent faults) plus NVML's GPU utilization (its mean
// since the start: the busy fraction NVML sees) into <workspace>/service/status.json, written
// whole and renamed so a reader never sees half of it.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "core/json.h"

namespace ptxbench {

class ServiceStatusWriter {
 public:
  ServiceStatusWriter(std::filesystem::path workspace, std::vector<int> devices, std::function<json()> snapshot);
  ~ServiceStatusWriter();
  json nvml_busy() const;  // per device: mean utilization so far, samples
  void write_now();

 private:
  void loop();
  std::filesystem::path workspace_;
  std::vector<int> devices_;
  std::function<json()> snapshot_;
  mutable std::mutex mu_;
  std::map<int, std::pair<double, long long>> util_;  // device -> (sum of %, samples)
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::filesystem::path service_status_file(const std::filesystem::path& workspace);

}  // namespace ptxbench

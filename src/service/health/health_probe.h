// The health probe between jobs: a short process on one GPU that runs a known kernel and checks
// its checksum (a clean context and a working GPU), times a calibration kernel (thermal
// screening compares it with the GPU's calibration at start), and reads NVML's clocks,
// temperature, throttle reasons and volatile uncorrected ECC count. It speaks the worker's
// result protocol (signed JSON lines on --result-fd): ptxbench-health-probe (health/probe_main.cu) on a
// GPU host, a simulated GPU in the fault-injection tests.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "judge/worker_client.h"

namespace ptxbench {

struct HealthReport {
  bool healthy = false;
  std::string reason;         // why not healthy
  double calibration_ms = 0;  // the calibration kernel's median time
  bool throttled = false;     // thermal or hardware slowdown reported by NVML
  std::vector<std::string> throttle_reasons;
  long long ecc_uncorrected = -1;   // volatile count; -1 unknown
  json gpu_state = json::object();  // clocks, temperature, power (NVML), as the worker reports it
  double seconds = 0;               // the probe's own wall time
  json to_json() const;
};

class HealthProbe {
 public:
  virtual ~HealthProbe() = default;
  virtual HealthReport probe(int device) = 0;
};

// Runs `executable --job FILE --probe --device N --result-fd 3` the way a worker runs (its sandbox,
// a job file {"mode": "probe", "device": N} carrying the channel's key, signed result lines) and
// reads its "health" event. A channel that fails verification is an unhealthy report saying so.
class ProcessHealthProbe final : public HealthProbe {
 public:
  ProcessHealthProbe(std::filesystem::path executable, std::filesystem::path job_dir, std::chrono::seconds timeout);
  explicit ProcessHealthProbe(WorkerLaunch launch);  // launch.worker: the probe's executable
  HealthReport probe(int device) override;

 private:
  WorkerLaunch launch_;
};

// ptxbench-health-probe beside the running executable (or in bin/ next to it), else the name.
std::filesystem::path locate_health_probe();

}  // namespace ptxbench

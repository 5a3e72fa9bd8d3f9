// The health probe between jobs: a checksummed kernel, a calibration time and NVML's readings.
#include "service/health/health_probe.h"

#include "judge/candidate_files.h"
#include "judge/worker_client.h"

namespace ptxbench {
namespace fs = std::filesystem;

json HealthReport::to_json() const {
  return {{"healthy", healthy},
          {"reason", reason},
          {"calibration_ms", calibration_ms},
          {"throttled", throttled},
          {"throttle_reasons", throttle_reasons},
          {"ecc_uncorrected", ecc_uncorrected},
          {"gpu_state", gpu_state},
          {"seconds", seconds}};
}

ProcessHealthProbe::ProcessHealthProbe(fs::path executable, fs::path job_dir, std::chrono::seconds timeout) {
  launch_.worker = std::move(executable);
  launch_.job_dir = std::move(job_dir);
  launch_.timeout = timeout;
}

ProcessHealthProbe::ProcessHealthProbe(WorkerLaunch launch) : launch_(std::move(launch)) {}

HealthReport ProcessHealthProbe::probe(int device) {
  HealthReport r;
  WorkerLaunch launch = launch_;
  launch.extra_args = {"--probe", "--device", std::to_string(device)};
  WorkerRun run = run_worker(launch, json{{"mode", "probe"}, {"device", device}});
  r.seconds = run.process.seconds;
  if (run.tampered) {
    r.healthy = false;
    r.reason = "the health probe's result channel failed verification (" + *run.tampered + "; " +
               run.process.describe() +
               "): a probe that does not speak the signed protocol, or something else wrote to its channel";
    return r;
  }
  auto events = run.of_type("health");
  if (events.empty() || !run.done) {
    r.healthy = false;
    r.reason = run.fatal ? "health probe: " + run.fatal->value("message", "fatal error")
                         : "health probe did not finish (" + run.process.describe() + ")";
    return r;
  }
  const json& h = events.front();
  r.calibration_ms = h.value("calibration_ms", 0.0);
  r.ecc_uncorrected = h.value("ecc_uncorrected", -1LL);
  r.gpu_state = h.value("gpu_state", json::object());
  r.throttled = r.gpu_state.value("throttled", false);
  if (r.gpu_state.contains("clock_event_reasons"))
    for (const auto& n : r.gpu_state.at("clock_event_reasons")) r.throttle_reasons.push_back(n.get<std::string>());
  if (!h.value("checksum_ok", false))
    r.reason = "the known kernel's checksum is wrong (" + h.value("detail", std::string("?")) + ")";
  else if (r.ecc_uncorrected > 0)
    r.reason = std::to_string(r.ecc_uncorrected) + " uncorrected ECC error(s) since the driver loaded";
  else if (h.contains("xid")) r.reason = "Xid event " + h.at("xid").dump();
  r.healthy = r.reason.empty();
  return r;
}

fs::path locate_health_probe() { return locate_beside_executable("ptxbench-health-probe"); }

}  // namespace ptxbench

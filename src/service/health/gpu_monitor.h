// The reliability monitor and thermal screening over the GPUs' gates.
//  - calibrate(): at start, every GPU probed; its calibration kernel time is its reference.
//  - check(): a probe between jobs (after a result that could be the GPU's fault, and every
//    `probe_every_jobs`). Unhealthy: the GPU is paused (no job starts on it) and restarted: its
//    lanes finish or fail their jobs (re-queued as infra faults), then it is probed until healthy
//    and calibrated again before dispatch resumes.
//    A GPU still unhealthy after `max_restarts` restarts is out of service: no job runs on it
//    again in this process; where no GPU is left in service the engine ends the jobs waiting for
//    one (re-queued while attempts remain, then infra_error with the probe's reason), rather than
//    holding them for ever (a probe that can never pass, such as one whose result channel does not
//    verify, would otherwise stall every job with no error).
//  - Thermal screening: a GPU whose calibration time is more than `calibration_tolerance` off its
//    reference, or that reports thermal/hardware throttling, is excluded from timing (shared
//    stages still run there) and probed until it recovers.
//  - Xid and double-bit ECC events (health/xid_events.h, read by a thread of this process): a
//    hardware one (health/xid_catalog.h) makes the GPU unhealthy at once, as a failed probe does,
//    and the results of the jobs running on it then are not trusted (hardware_faults()); a
//    program's own Xid (an illegal address) is recorded only; an unknown one is answered with a probe.
//  - Every fault is kept (the most recent ones in memory for `service status`, all of them in
//    the fault log) with the GPU, the job and why.
#pragma once
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "service/engine/gpu_gate.h"
#include "service/health/health_probe.h"
#include "service/health/xid_events.h"

namespace ptxbench {

struct MonitorOptions {
  double calibration_tolerance = 0.15;  // the paper's figure
  std::chrono::milliseconds recovery_interval{1000};
  int probe_every_jobs = 0;  // 0: only after suspicious results
  int max_restarts = 10;     // then out of service; 0: restarted for ever
  size_t recent_faults = 50;
  bool watch_xid = true;
  std::shared_ptr<XidSource> xid_source;  // null: NVML's events for the monitored GPUs
};

struct FaultRecord {
  std::string at;  // UTC ISO 8601
  int device = -1;
  std::string job;
  std::string kind;  // infra_fault, unhealthy, timing_excluded, recovered, out_of_service
  std::string reason;
  json to_json() const;
};

class GpuMonitor {
 public:
  using FaultSink = std::function<void(const FaultRecord&)>;
  GpuMonitor(HealthProbe& probe, std::vector<GpuGate*> gates, MonitorOptions options, FaultSink sink = {});
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  void calibrate();
  // Probes `device` now and applies the result; returns the report.
  HealthReport check(int device, const std::string& why);
  // A timed sample ran throttled: excluded from timing until a probe finds it within calibration.
  void exclude_from_timing(int device, const std::string& job, const std::string& reason);
  // How many times the GPU has been found unhealthy: a suspicious result from a job during which
  // this changed is not trusted even when the GPU is healthy again by the time it is probed.
  long long unhealthy_count(int device) const;
  // Xid or ECC events of the hardware class seen on the GPU so far, and the latest one's words: a
  // result from a job during which the count changed is not trusted, whatever its verdict.
  long long hardware_faults(int device) const;
  std::string last_hardware_fault(int device) const;
  void on_xid(const XidEvent& event);
  // Counts a finished job; true when the periodic probe is due.
  bool job_finished(int device);
  void record(FaultRecord f);
  std::vector<FaultRecord> recent_faults() const;
  json snapshot() const;  // per GPU: health, calibration, last report
  void stop();

 private:
  struct Gpu {
    GpuGate* gate = nullptr;
    double reference_ms = 0;
    HealthReport last;
    bool healthy = true;
    int restarts = 0;
    long long unhealthy_count = 0;
    long long jobs = 0;
    std::thread recovery;
    bool recovering = false;
    bool out_of_service = false;
    long long xid_events = 0, hardware_faults = 0;
    std::string last_hardware_fault;
  };
  void start_xid_watch();
  void apply(Gpu& g, const HealthReport& r, bool after_restart);
  void start_recovery_locked(Gpu& g);
  void recovery_loop(Gpu* g);
  std::string thermal_problem(const Gpu& g, const HealthReport& r) const;

  HealthProbe& probe_;
  MonitorOptions options_;
  FaultSink sink_;
  mutable std::mutex mu_;
  std::map<int, Gpu> gpus_;
  std::deque<FaultRecord> recent_;
  std::atomic<bool> stopping_{false};
  std::shared_ptr<XidSource> xid_;
  std::string xid_status_ = "not watched";
  std::thread xid_thread_;
};

}  // namespace ptxbench

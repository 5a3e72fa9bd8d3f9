// The reliability monitor over the GPUs' gates: calibration, probes between jobs, thermal screening.
#include "service/health/gpu_monitor.h"

#include <cmath>

#include "core/timestamp.h"
#include "service/health/xid_catalog.h"

namespace ptxbench {

json FaultRecord::to_json() const {
  return {{"at", at}, {"device", device}, {"job", job}, {"kind", kind}, {"reason", reason}};
}

GpuMonitor::GpuMonitor(HealthProbe& probe, std::vector<GpuGate*> gates, MonitorOptions options, FaultSink sink)
    : probe_(probe), options_(options), sink_(std::move(sink)) {
  for (GpuGate* g : gates) gpus_[g->device()].gate = g;
}

GpuMonitor::~GpuMonitor() { stop(); }

void GpuMonitor::stop() {
  stopping_ = true;
  if (xid_thread_.joinable()) xid_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    for (auto& [d, g] : gpus_)
      if (g.recovery.joinable()) threads.push_back(std::move(g.recovery));
  }
  for (auto& t : threads) t.join();
}

void GpuMonitor::record(FaultRecord f) {
  if (f.at.empty()) f.at = utc_timestamp_ms();
  std::lock_guard lock(mu_);
  recent_.push_back(f);
  while (recent_.size() > options_.recent_faults) recent_.pop_front();
  if (sink_) sink_(f);
}

std::vector<FaultRecord> GpuMonitor::recent_faults() const {
  std::lock_guard lock(mu_);
  return {recent_.begin(), recent_.end()};
}

std::string GpuMonitor::thermal_problem(const Gpu& g, const HealthReport& r) const {
  if (r.throttled) {
    std::string names;
    for (const auto& n : r.throttle_reasons) names += (names.empty() ? "" : ",") + n;
    return "throttling reported (" + (names.empty() ? std::string("unknown reason") : names) + ")";
  }
  if (g.reference_ms > 0 && r.calibration_ms > 0) {
    const double off = std::abs(r.calibration_ms - g.reference_ms) / g.reference_ms;
    if (off > options_.calibration_tolerance) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "calibration kernel %.3f ms, %.0f%% off its reference %.3f ms (limit %.0f%%)",
                    r.calibration_ms, off * 100, g.reference_ms, options_.calibration_tolerance * 100);
      return buf;
    }
  }
  return {};
}

void GpuMonitor::calibrate() {
  std::vector<int> devices;
  {
    std::lock_guard lock(mu_);
    for (auto& [d, g] : gpus_) devices.push_back(d);
  }
  start_xid_watch();
  for (int d : devices) {
    HealthReport r = probe_.probe(d);
    std::unique_lock lock(mu_);
    Gpu& g = gpus_.at(d);
    if (r.healthy && !r.throttled) g.reference_ms = r.calibration_ms;
    lock.unlock();
    apply(g, r, false);
  }
}

HealthReport GpuMonitor::check(int device, const std::string& why) {
  HealthReport r = probe_.probe(device);
  (void)why;
  apply(gpus_.at(device), r, false);
  return r;
}

void GpuMonitor::exclude_from_timing(int device, const std::string& job, const std::string& reason) {
  {
    std::lock_guard lock(mu_);
    Gpu& g = gpus_.at(device);
    g.gate->set_timing_excluded(true, reason);
    start_recovery_locked(g);
  }
  record({"", device, job, "timing_excluded", reason});
}

long long GpuMonitor::unhealthy_count(int device) const {
  std::lock_guard lock(mu_);
  return gpus_.at(device).unhealthy_count;
}

long long GpuMonitor::hardware_faults(int device) const {
  std::lock_guard lock(mu_);
  return gpus_.at(device).hardware_faults;
}

std::string GpuMonitor::last_hardware_fault(int device) const {
  std::lock_guard lock(mu_);
  return gpus_.at(device).last_hardware_fault;
}

void GpuMonitor::start_xid_watch() {
  if (!options_.watch_xid || xid_thread_.joinable()) return;
  std::vector<int> devices;
  {
    std::lock_guard lock(mu_);
    for (auto& [d, g] : gpus_) devices.push_back(d);
  }
  xid_ = options_.xid_source ? options_.xid_source : std::shared_ptr<XidSource>(make_nvml_xid_source(devices));
  {
    std::lock_guard lock(mu_);
    xid_status_ = xid_->status();
  }
  if (!xid_->available()) return;
  xid_thread_ = std::thread([this] {
    while (!stopping_)
      if (auto e = xid_->wait(std::chrono::milliseconds(200))) on_xid(*e);
  });
}

void GpuMonitor::on_xid(const XidEvent& e) {
  const XidMeaning m = e.double_bit_ecc ? XidMeaning{XidClass::hardware, "double-bit ECC error"} : classify_xid(e.xid);
  const std::string what =
      (e.double_bit_ecc ? std::string("NVML double-bit ECC event") : "NVML Xid " + std::to_string(e.xid)) + " (" +
      m.what + "; " + to_string(m.cls) + ")";
  std::unique_lock lock(mu_);
  auto it = gpus_.find(e.device);
  if (it == gpus_.end()) {
    lock.unlock();
    record({"", e.device, "", "xid", what + ": on a GPU this service does not use"});
    return;
  }
  Gpu& g = it->second;
  ++g.xid_events;
  if (m.cls == XidClass::hardware) {
    ++g.hardware_faults;
    ++g.unhealthy_count;
    g.last_hardware_fault = what;
    g.healthy = false;
    g.gate->set_paused(true, what);
    start_recovery_locked(g);
    lock.unlock();
    record({"", e.device, "", "xid",
            what + ": dispatch paused, results of the jobs running on it not trusted, restarting"});
    return;
  }
  lock.unlock();
  if (m.cls == XidClass::application) {
    record({"", e.device, "", "xid", what + ": a program's own fault, the GPU stays in service"});
    return;
  }
  record({"", e.device, "", "xid", what + ": probing the GPU"});
  check(e.device, "after " + what);
}

bool GpuMonitor::job_finished(int device) {
  std::lock_guard lock(mu_);
  Gpu& g = gpus_.at(device);
  ++g.jobs;
  return options_.probe_every_jobs > 0 && g.jobs % options_.probe_every_jobs == 0;
}

void GpuMonitor::apply(Gpu& g, const HealthReport& r, bool after_restart) {
  const int device = g.gate->device();
  std::vector<FaultRecord> faults;
  {
    std::lock_guard lock(mu_);
    g.last = r;
    if (!r.healthy) {
      ++g.unhealthy_count;
      if (g.healthy) faults.push_back({"", device, "", "unhealthy", r.reason + ": dispatch paused, restarting"});
      g.healthy = false;
      g.gate->set_paused(true, r.reason);
      start_recovery_locked(g);
    } else {
      if (g.reference_ms <= 0 && !r.throttled) g.reference_ms = r.calibration_ms;  // throttled at start
      if (!g.healthy || after_restart) {
        if (!g.healthy)
          faults.push_back({"", device, "", "recovered",
                            "healthy again after restart; calibration " + std::to_string(r.calibration_ms) + " ms"});
        g.healthy = true;
        g.gate->set_paused(false);
      }
      const std::string thermal = thermal_problem(g, r);
      const bool was_excluded = g.gate->snapshot().timing_excluded;
      if (!thermal.empty()) {
        if (!was_excluded) faults.push_back({"", device, "", "timing_excluded", thermal});
        g.gate->set_timing_excluded(true, thermal);
        start_recovery_locked(g);
      } else if (was_excluded) {
        faults.push_back({"", device, "", "recovered", "within calibration again: timing resumes"});
        g.gate->set_timing_excluded(false);
      }
    }
  }
  for (auto& f : faults) record(std::move(f));
}

void GpuMonitor::start_recovery_locked(Gpu& g) {
  if (g.recovering || g.out_of_service || stopping_) return;
  if (g.recovery.joinable()) g.recovery.join();  // a finished earlier recovery
  g.recovering = true;
  g.recovery = std::thread([this, gp = &g] { recovery_loop(gp); });
}

void GpuMonitor::recovery_loop(Gpu* g) {
  for (;;) {
    for (auto waited = std::chrono::milliseconds(0); waited < options_.recovery_interval && !stopping_;
         waited += std::chrono::milliseconds(20))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (stopping_) break;
    bool restarting;
    {
      std::lock_guard lock(mu_);
      restarting = !g->healthy;
      if (restarting) ++g->restarts;
    }
    // A restart: new processes on the GPU (every probe and worker is one), calibrated again.
    HealthReport r = probe_.probe(g->gate->device());
    apply(*g, r, restarting);
    std::unique_lock lock(mu_);
    const bool excluded = g->gate->snapshot().timing_excluded;
    if (g->healthy && !excluded) break;
    if (!g->healthy && options_.max_restarts > 0 && g->restarts >= options_.max_restarts) {
      g->out_of_service = true;
      const std::string why = "still unhealthy after " + std::to_string(g->restarts) + " restart(s): " + r.reason;
      g->gate->set_out_of_service(why);
      lock.unlock();
      record({"", g->gate->device(), "", "out_of_service", why});
      lock.lock();
      break;
    }
  }
  std::lock_guard lock(mu_);
  g->recovering = false;
}

json GpuMonitor::snapshot() const {
  std::lock_guard lock(mu_);
  json out = json::array();
  for (const auto& [d, g] : gpus_) {
    const auto s = g.gate->snapshot();
    out.push_back({{"device", d},
                   {"healthy", g.healthy},
                   {"paused", s.paused},
                   {"pause_reason", s.pause_reason},
                   {"timing_excluded", s.timing_excluded},
                   {"timing_exclusion_reason", s.timing_exclusion_reason},
                   {"reference_calibration_ms", g.reference_ms},
                   {"restarts", g.restarts},
                   {"out_of_service", g.out_of_service},
                   {"out_of_service_reason", s.out_of_service_reason},
                   {"jobs", g.jobs},
                   {"xid_watch", xid_status_},
                   {"xid_events", g.xid_events},
                   {"hardware_faults", g.hardware_faults},
                   {"last_hardware_fault", g.last_hardware_fault},
                   {"last_probe", g.last.to_json()}});
  }
  return out;
}

}  // namespace ptxbench

// The service's engine: leases jobs, prepares them on the CPU pool, runs them on the GPUs' lanes.
#include "service/engine/service_engine.h"

#include <unistd.h>

#include <iostream>

#include "core/timestamp.h"
#include "judge/infra_fault.h"

namespace ptxbench {
namespace {

std::string default_owner() {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + utc_timestamp_ms();
}

std::string lane_name(int device, int lane) { return "gpu" + std::to_string(device) + "/lane" + std::to_string(lane); }

}  // namespace

ServiceEngine::ServiceEngine(JobQueue& queue, CandidateExecutor& executor, HealthProbe* probe, EngineOptions options,
                             MonitorOptions monitor_options, GpuMonitor::FaultSink fault_sink)
    : queue_(queue), executor_(executor), probe_(probe), options_(std::move(options)) {
  if (options_.owner.empty()) options_.owner = default_owner();
  if (options_.shared_lanes < 1) options_.shared_lanes = 1;
  if (options_.cpu_jobs < 1) options_.cpu_jobs = 1;
  if (options_.ready_limit <= 0)
    options_.ready_limit = 2 * options_.shared_lanes * static_cast<int>(options_.devices.size());
  if (!options_.pipelining) options_.ready_limit = 1;
  std::vector<GpuGate*> raw;
  for (int d : options_.devices) {
    gates_.push_back(std::make_unique<GpuGate>(d, options_.max_timing_wait, options_.shared_pause_timeout,
                                               options_.hold_unpausable_for_timed_start));
    raw.push_back(gates_.back().get());
  }
  if (probe_) monitor_ = std::make_unique<GpuMonitor>(*probe_, raw, monitor_options, std::move(fault_sink));
}

ServiceEngine::~ServiceEngine() { stop(); }

void ServiceEngine::start() {
  if (monitor_) monitor_->calibrate();
  for (int i = 0; i < options_.cpu_jobs; ++i) threads_.emplace_back([this, i] { cpu_loop(i); });
  for (const auto& g : gates_)
    for (int lane = 0; lane < options_.shared_lanes; ++lane)
      threads_.emplace_back([this, d = g->device(), lane] { lane_loop(d, lane); });
  threads_.emplace_back([this] { heartbeat_loop(); });
}

void ServiceEngine::stop() {
  if (stopping_.exchange(true)) return;
  ready_cv_.notify_all();
  space_cv_.notify_all();
  idle_cv_.notify_all();
  for (auto& g : gates_) g->wake_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  if (monitor_) monitor_->stop();
  // Prepared jobs that never reached a lane go back to the queue.
  std::deque<std::shared_ptr<InFlight>> left;
  {
    std::lock_guard lock(mu_);
    left.swap(ready_);
  }
  for (auto& w : left) fail(w->job, "the service stopped before the job reached a GPU", -1);
}

void ServiceEngine::notify_enqueued() { idle_cv_.notify_all(); }

void ServiceEngine::hold(const LeasedJob& job) {
  std::lock_guard lock(mu_);
  held_[job.id] = job.owner;
  ++in_flight_;
  ++counters_.leased;
}

void ServiceEngine::release(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    held_.erase(id);
    --in_flight_;
  }
  space_cv_.notify_all();
  if (on_finished) on_finished(id);
}

void ServiceEngine::finish(const LeasedJob& job, const json& result, int device) {
  bool stored = false;
  auto s = queue_.complete(job.id, job.owner, result, &stored);
  if (!s.ok) std::cerr << "ptxbench service: " << s.error << " (the job's lease will expire and it runs again)\n";
  {
    std::lock_guard lock(mu_);
    if (stored) ++counters_.completed;
    else if (s.ok) ++counters_.duplicate_results;
  }
  (void)device;
  release(job.id);
}

void ServiceEngine::fail(const LeasedJob& job, const std::string& reason, int device) {
  bool requeued = false;
  auto s = queue_.fail(job.id, job.owner, reason, &requeued);
  if (!s.ok) std::cerr << "ptxbench service: " << s.error << "\n";
  {
    std::lock_guard lock(mu_);
    ++counters_.infra_faults;
  }
  if (monitor_)
    monitor_->record({"", device, job.id, "infra_fault", reason + (requeued ? " (re-queued)" : " (final)")});
  release(job.id);
  if (requeued) idle_cv_.notify_all();
}

void ServiceEngine::cpu_loop(int index) {
  (void)index;
  while (!stopping_) {
    {
      std::unique_lock lock(mu_);
      space_cv_.wait(lock, [&] {
        return stopping_ ||
               (static_cast<int>(ready_.size()) < options_.ready_limit && (options_.pipelining || in_flight_ == 0));
      });
      if (stopping_) return;
    }
    std::optional<LeasedJob> job;
    // Pipelining off: one job anywhere in the engine; the lease is taken under the lock so that
    // two CPU threads never both see an empty engine.
    std::unique_lock gate_lock(sequential_, std::defer_lock);
    if (!options_.pipelining) {
      gate_lock.lock();
      std::lock_guard lock(mu_);
      if (in_flight_ > 0) continue;
    }
    auto s = queue_.lease(options_.owner, options_.lease_ttl, &job);
    if (s.ok && job) hold(*job);
    if (gate_lock.owns_lock()) gate_lock.unlock();
    if (!s.ok) std::cerr << "ptxbench service: " << s.error << "\n";
    if (!s.ok || !job) {
      std::unique_lock lock(mu_);
      idle_cv_.wait_for(lock, options_.idle_poll, [&] { return stopping_.load(); });
      continue;
    }
    auto w = std::make_shared<InFlight>();
    w->job = std::move(*job);
    try {
      w->prepared = executor_.prepare(w->job);
    } catch (const InfraFault& e) {
      fail(w->job, e.what(), -1);
      continue;
    } catch (const std::exception& e) {
      fail(w->job, std::string("harness error while preparing: ") + e.what(), -1);
      continue;
    }
    if (!w->prepared.needs_gpu) {
      {
        std::lock_guard lock(mu_);
        ++counters_.prepared_only;
      }
      finish(w->job, w->prepared.result, -1);
      continue;
    }
    {
      std::lock_guard lock(mu_);
      ready_.push_back(std::move(w));
    }
    ready_cv_.notify_one();
  }
}

void ServiceEngine::lane_loop(int device, int lane) {
  GpuGate* gate = nullptr;
  for (auto& g : gates_)
    if (g->device() == device) gate = g.get();
  const std::string name = lane_name(device, lane);
  while (!stopping_) {
    {
      std::lock_guard lock(mu_);
      const auto s = gate->snapshot();
      lane_state_[name] = s.out_of_service ? "out of service" : s.paused ? "paused" : "idle";
    }
    if (!gate->wait_until_dispatchable(stopping_)) return;
    if (gate->snapshot().out_of_service) {
      lane_without_gpu(device, name);
      continue;
    }
    std::shared_ptr<InFlight> w;
    {
      std::unique_lock lock(mu_);
      ready_cv_.wait_for(lock, options_.idle_poll, [&] { return stopping_ || !ready_.empty(); });
      if (stopping_) return;
      if (ready_.empty() || gate->snapshot().paused) continue;
      w = std::move(ready_.front());
      ready_.pop_front();
      lane_state_[name] = "running " + w->job.id;
    }
    space_cv_.notify_all();
    bool infra = false;
    const long long unhealthy_before = monitor_ ? monitor_->unhealthy_count(device) : 0;
    const long long hardware_before = monitor_ ? monitor_->hardware_faults(device) : 0;
    try {
      json result = executor_.run_on_gpu(w->job, w->prepared, *gate, device);
      if (monitor_ && monitor_->hardware_faults(device) != hardware_before)
        throw InfraFault("GPU " + std::to_string(device) + " reported " + monitor_->last_hardware_fault(device) +
                         " while the job ran: the result is not trusted");
      if (const std::string t = executor_.throttled_during_timing(result); !t.empty()) {
        if (monitor_) monitor_->exclude_from_timing(device, w->job.id, t);
        else gate->set_timing_excluded(true, t);
        throw InfraFault("GPU " + std::to_string(device) + " throttled during a timed sample (" + t +
                         "): the job runs again");
      }
      if (monitor_ && executor_.suspicious(result)) {
        HealthReport r = monitor_->check(device, "after " + w->job.id);
        if (!r.healthy)
          throw InfraFault("GPU " + std::to_string(device) + " failed its health probe after the job (" + r.reason +
                           "): the result is not trusted");
        if (monitor_->unhealthy_count(device) != unhealthy_before)
          throw InfraFault("GPU " + std::to_string(device) +
                           " failed a health probe while the job ran: the result is not trusted");
      }
      finish(w->job, result, device);
    } catch (const InfraFault& e) {
      infra = true;
      fail(w->job, e.what(), device);
    } catch (const std::exception& e) {
      infra = true;
      fail(w->job, std::string("harness error on ") + name + ": " + e.what(), device);
    }
    if (monitor_) {
      const bool due = monitor_->job_finished(device);
      if (due || infra) monitor_->check(device, infra ? "after an infra fault" : "periodic");
    }
  }
}

void ServiceEngine::lane_without_gpu(int device, const std::string& name) {
  std::string why;
  for (const auto& g : gates_) {
    const auto s = g->snapshot();
    if (!s.out_of_service) {
      // Another GPU still serves the jobs: this lane only waits.
      std::unique_lock lock(mu_);
      idle_cv_.wait_for(lock, options_.idle_poll, [&] { return stopping_.load(); });
      return;
    }
    why += (why.empty() ? "" : "; ") + ("GPU " + std::to_string(s.device) + ": " + s.out_of_service_reason);
  }
  std::shared_ptr<InFlight> w;
  {
    std::unique_lock lock(mu_);
    ready_cv_.wait_for(lock, options_.idle_poll, [&] { return stopping_ || !ready_.empty(); });
    if (stopping_ || ready_.empty()) return;
    w = std::move(ready_.front());
    ready_.pop_front();
    lane_state_[name] = "ending " + w->job.id + " (no GPU in service)";
  }
  space_cv_.notify_all();
  fail(w->job, "harness error: no GPU is in service (" + why + ")", device);
}

void ServiceEngine::heartbeat_loop() {
  while (!stopping_) {
    {
      std::unique_lock lock(mu_);
      idle_cv_.wait_for(lock, options_.heartbeat_interval, [&] { return stopping_.load(); });
      if (stopping_) return;
    }
    std::map<std::string, std::string> held;
    {
      std::lock_guard lock(mu_);
      held = held_;
    }
    for (const auto& [id, owner] : held) {
      bool still = false;
      auto s = queue_.heartbeat(id, owner, options_.lease_ttl, &still);
      if (!s.ok) std::cerr << "ptxbench service: " << s.error << "\n";
    }
  }
}

void ServiceEngine::wait_until_drained() {
  while (!wait_until_drained_for(std::chrono::hours(1))) {
  }
}

bool ServiceEngine::wait_until_drained_for(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    QueueCounts c;
    auto s = queue_.counts(&c);
    int in_flight;
    {
      std::lock_guard lock(mu_);
      in_flight = in_flight_;
    }
    if (s.ok && c.queued == 0 && c.leased == 0 && in_flight == 0) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(options_.idle_poll);
  }
}

EngineCounters ServiceEngine::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

json ServiceEngine::snapshot() const {
  json lanes = json::object(), gpus = json::array();
  json counters;
  {
    std::lock_guard lock(mu_);
    for (const auto& [k, v] : lane_state_) lanes[k] = v;
    counters = {{"leased", counters_.leased},
                {"completed", counters_.completed},
                {"duplicate_results", counters_.duplicate_results},
                {"infra_faults", counters_.infra_faults},
                {"prepared_only", counters_.prepared_only},
                {"in_flight", in_flight_},
                {"ready", ready_.size()}};
  }
  for (const auto& g : gates_) {
    const auto s = g->snapshot();
    gpus.push_back(
        {{"device", s.device},
         {"shared_users", s.shared_users},
         {"timing", s.exclusive},
         {"busy_fraction", s.open_seconds > 0 ? s.held_seconds / s.open_seconds : 0.0},
         {"timed_fraction", s.open_seconds > 0 ? s.exclusive_seconds / s.open_seconds : 0.0},
         {"draining_fraction", s.open_seconds > 0 ? s.draining_seconds / s.open_seconds : 0.0},
         {"seconds", {{"open", s.open_seconds}, {"held", s.held_seconds}, {"timed_alone", s.exclusive_seconds}}},
         {"draining_seconds",
          {{"all", s.draining_seconds},
           {"on_timed_start", s.draining_on_timed_start_seconds},
           {"on_unpausable", s.draining_on_unpausable_seconds},
           {"on_pause", s.draining_on_pause_seconds}}},
         {"held_back_seconds", s.held_back_seconds},
         {"timed_starting", s.timed_starting},
         {"exclusive_grants", s.exclusive_grants},
         {"paused_grants", s.paused_grants},
         {"paused_timed_starts", s.paused_timed_starts},
         {"pause_fallbacks", s.pause_fallbacks},
         {"untrusted_windows", s.untrusted_windows}});
  }
  json faults = json::array();
  json health = json::array();
  if (monitor_) {
    for (const auto& f : monitor_->recent_faults()) faults.push_back(f.to_json());
    health = monitor_->snapshot();
  }
  return {{"owner", options_.owner},
          {"options",
           {{"devices", options_.devices},
            {"shared_lanes", options_.shared_lanes},
            {"cpu_jobs", options_.cpu_jobs},
            {"pipelining", options_.pipelining},
            {"hold_unpausable_for_timed_start", options_.hold_unpausable_for_timed_start}}},
          {"lanes", lanes},
          {"gpus", gpus},
          {"health", health},
          {"counters", counters},
          {"recent_faults", faults}};
}

}  // namespace ptxbench

// The GPU profiling service's engine: leases jobs from the queue, prepares them on a bounded CPU
// pool, and runs those that built and passed the static checks on the GPUs' lanes (per GPU
// `shared_lanes` of them, all under the GPU's gate: shared stages side by side, the timed stage
// alone). Leases are kept alive by a heartbeat while a job is anywhere in the engine; a result is
// stored once (the queue's complete()), an infra fault re-queues the job. The reliability
// monitor (health/gpu_monitor.h) probes a GPU between jobs and pauses an unhealthy one; where
// every GPU is out of service the jobs waiting for one end as infra faults, never wait for ever.
// The same engine serves `ptxbench serve` and, in-process, `eval` of several files.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "service/engine/candidate_executor.h"
#include "service/engine/gpu_gate.h"
#include "service/health/gpu_monitor.h"
#include "service/queue/job_queue.h"

namespace ptxbench {

struct EngineOptions {
  std::vector<int> devices{0};
  int shared_lanes = 2;  // per GPU; 1 turns GPU sharing off
  int cpu_jobs = 2;      // the build + static pool
  // Prepared jobs waiting for a lane; 0: two per lane. With `pipelining` off, one job at a time
  // goes through the whole engine (build, then its GPU stages, then the next job).
  int ready_limit = 0;
  bool pipelining = true;
  std::chrono::milliseconds lease_ttl{std::chrono::seconds(120)};
  std::chrono::milliseconds heartbeat_interval{std::chrono::seconds(10)};
  std::chrono::milliseconds idle_poll{std::chrono::milliseconds(100)};
  std::chrono::milliseconds max_timing_wait{std::chrono::seconds(300)};
  // How long a timed stage waits for the shared workers that can pause to acknowledge (then it waits
  // for them to end, as without pausing); 0: shared workers are never paused (engine/gpu_gate.h).
  std::chrono::milliseconds shared_pause_timeout{std::chrono::seconds(2)};
  // A shared worker that cannot pause (sanitizers, smoke runs) does not start while a timed worker
  // on its GPU starts, so that worker's request for the GPU alone does not wait for it to end.
  bool hold_unpausable_for_timed_start = false;
  std::string owner;  // lease owner prefix; empty: host:pid
};

struct EngineCounters {
  long long leased = 0, completed = 0, duplicate_results = 0, infra_faults = 0, prepared_only = 0;
};

class ServiceEngine {
 public:
  using FinishedFn = std::function<void(const std::string& job_id)>;
  // `monitor_options` configure the reliability monitor; `probe` may be null (no probes).
  ServiceEngine(JobQueue& queue, CandidateExecutor& executor, HealthProbe* probe, EngineOptions options,
                MonitorOptions monitor_options = {}, GpuMonitor::FaultSink fault_sink = {});
  ~ServiceEngine();
  ServiceEngine(const ServiceEngine&) = delete;
  ServiceEngine& operator=(const ServiceEngine&) = delete;

  void start();  // calibrates the GPUs, then starts the pool and the lanes
  void stop();   // finishes in-flight work's bookkeeping; held leases expire or are failed
  // Blocks until the queue holds nothing queued or leased and nothing is in flight here.
  void wait_until_drained();
  // The same for at most `limit`; false when it was not drained by then.
  bool wait_until_drained_for(std::chrono::milliseconds limit);
  void notify_enqueued();  // wakes idle CPU threads
  FinishedFn on_finished;  // called after a job ended (set before start())

  json snapshot() const;  // lanes, GPUs (gate + health), counters, recent faults
  EngineCounters counters() const;
  GpuMonitor* monitor() { return monitor_.get(); }
  const EngineOptions& options() const { return options_; }

 private:
  struct InFlight {
    LeasedJob job;
    PreparedJob prepared;
  };
  void cpu_loop(int index);
  void lane_loop(int device, int lane);
  // A lane of a GPU out of service: where no GPU is left in service, ends a job that waits for one.
  void lane_without_gpu(int device, const std::string& name);
  void heartbeat_loop();
  void finish(const LeasedJob& job, const json& result, int device);
  void fail(const LeasedJob& job, const std::string& reason, int device);
  void hold(const LeasedJob& job);
  void release(const std::string& id);

  JobQueue& queue_;
  CandidateExecutor& executor_;
  HealthProbe* probe_;
  EngineOptions options_;
  std::vector<std::unique_ptr<GpuGate>> gates_;
  std::unique_ptr<GpuMonitor> monitor_;

  mutable std::mutex mu_;
  std::condition_variable ready_cv_, space_cv_, idle_cv_;
  std::deque<std::shared_ptr<InFlight>> ready_;
  std::map<std::string, std::string> held_;        // job id -> owner, kept alive by the heartbeat
  std::map<std::string, std::string> lane_state_;  // "gpu0/lane1" -> what it does
  int in_flight_ = 0;
  std::mutex sequential_;  // pipelining off: one job through the whole engine at a time
  EngineCounters counters_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace ptxbench

// The CandidateService over the GPU profiling service's engine, in process: submit() puts the
// candidate in the workspace's persistent job queue (SQLite lease table), the engine (CPU pool,
// per-GPU lanes with an exclusive timing lane, the reliability monitor) judges it, and the ticket
// resolves when its record is stored. `ptxbench eval` of several files and `ptxbench run` use it
// (--lanes); `ptxbench serve` runs the same engine over the same queue for other processes.
// With `queue` a redis:// URL the queue is Redis Streams shared by hosts; with `submit_only`
// there is no engine here: the jobs are judged by `serve` workers elsewhere, and tickets resolve
// from the queue's results stream (a submitting host needs no GPU).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "service/candidate_service.h"
#include "service/engine/evaluator_executor.h"
#include "service/engine/service_engine.h"
#include "service/health/health_probe.h"
#include "service/queue/redis_job_queue.h"

namespace ptxbench {

struct EngineServiceOptions {
  EvalOptions eval;      // arch, workspace, worker, stage switches
  EngineOptions engine;  // devices, lanes, CPU pool, leases
  MonitorOptions monitor;
  int max_attempts = 3;         // per job, before infra_error
  bool cache_baselines = true;  // workload-state caching: the library's clean timings (baseline_cache.h)
  std::string queue;            // --queue: empty for the workspace's SQLite queue, or redis://...
  bool submit_only = false;     // judged by remote `serve` workers (needs a redis:// queue)
};

class EngineCandidateService final : public CandidateService {
 public:
  EngineCandidateService(EngineServiceOptions options, ProgressFn progress);
  ~EngineCandidateService() override;

  CandidateTicket submit(CandidateJob job) override;
  ServiceLoad load() const override;
  GpuDescription describe_gpu() override;
  std::string arch() const override { return options_.eval.arch; }
  json snapshot() const;

 private:
  struct Waiter {
    std::vector<std::shared_ptr<std::promise<CandidateResult>>> promises;
    const ProblemSpec* problem = nullptr;
    std::string label;
  };
  void finished(const std::string& id);
  void start_engine();
  void follow_results(const std::string& cursor);  // a Redis queue: its results stream
  CandidateResult result_for(const JobOutcome& o, const Waiter& w) const;

  EngineServiceOptions options_;
  ProgressFn progress_;
  GpuDescription gpu_;
  std::unique_ptr<JobQueue> queue_;
  std::unique_ptr<RedisJobQueue> results_;  // a Redis queue: its own connection for blocking reads
  std::atomic<bool> stopping_{false};
  std::thread follower_;
  std::unique_ptr<ProcessHealthProbe> probe_;
  std::unique_ptr<EvaluatorExecutor> executor_;
  std::unique_ptr<ServiceEngine> engine_;
  mutable std::mutex mu_;
  std::map<std::string, Waiter> waiting_;
  std::map<std::string, const ProblemSpec*> problems_;
  std::map<std::string, std::unique_ptr<ProblemSpec>> owned_problems_;
  std::filesystem::path problems_root_;
  std::string session_;
  long long submitted_ = 0, finished_ = 0;
};

// The fault log of a workspace's service (one JSON object per line).
std::filesystem::path service_fault_log(const std::filesystem::path& workspace);
// Appends one fault to it.
void append_fault(const std::filesystem::path& workspace, const FaultRecord& f);

}  // namespace ptxbench

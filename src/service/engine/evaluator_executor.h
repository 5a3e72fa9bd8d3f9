// The real CandidateExecutor: prepare() is Evaluator::prepare (nvcc and the static checks, on
// the CPU pool); run_on_gpu() is Evaluator::judge on the lane's GPU with the GPU's gate, so the
// stages that time nothing share the GPU and timing has it alone. A record whose verdict is
// infra_error (a harness fault, a worker killed from outside) is thrown back as an InfraFault,
// so the job runs again instead of being stored. Job payloads: {"problem", "source", "label"}.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "judge/caches/baseline_cache.h"
#include "judge/caches/reference_pool.h"
#include "service/engine/candidate_executor.h"
#include "judge/evaluator.h"

namespace ptxbench {

using ProblemResolver = std::function<const ProblemSpec&(const std::string& name)>;

// A queued candidate; `source_folder` (CandidateJob's) only when not empty.
json candidate_payload(const std::string& problem, const std::string& source, const std::string& label,
                       const std::filesystem::path& source_folder = {});

class EvaluatorExecutor final : public CandidateExecutor {
 public:
  // `cache_baselines`: the library's clean timings (baseline_cache.h) and the correctness checks'
  // input sets with references (reference_pool.h) are reused across candidates.
  EvaluatorExecutor(EvalOptions options, ProblemResolver problems, ProgressFn progress, bool cache_baselines = true);
  PreparedJob prepare(const LeasedJob& job) override;
  json run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) override;
  bool suspicious(const json& result) const override;
  std::string throttled_during_timing(const json& result) const override;
  // Anything the monitor records about a GPU drops its cached clean timings.
  void gpu_fault(int device) {
    baselines_.invalidate(device);
    references_.invalidate(device);
  }
  long long cache_hits() const { return baselines_.hits(); }
  json reference_pool_stats() const { return references_.stats(); }
  // Whether a job's `source_folder` widens its build's include path and readable folders. Only for
  // a queue of this host's workspace (its submitters can read those folders anyway); a job from a
  // shared queue (Redis) is built without it, so no other host chooses what a build may read.
  void trust_source_folders(bool on) { trust_source_folders_ = on; }

 private:
  std::unique_ptr<Evaluator> take_evaluator(int device, GpuLaneGate& gate);
  void give_back(int device, std::unique_ptr<Evaluator> e);
  std::filesystem::path write_candidate(const std::string& source);

  EvalOptions options_;
  ProblemResolver problems_;
  ProgressFn progress_;
  bool cache_baselines_;
  bool trust_source_folders_ = false;
  BaselineCache baselines_;
  ReferencePool references_;
  Evaluator preparer_;  // prepare() is thread-safe
  std::mutex mu_;
  std::map<int, std::vector<std::unique_ptr<Evaluator>>> idle_;  // per GPU: judge() one call at a time each
};

}  // namespace ptxbench

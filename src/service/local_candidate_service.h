// The in-process CandidateService: a bounded compile pool runs Evaluator::prepare() (nvcc and the
// static checks, CPU-bound) on N threads, and one GPU lane runs Evaluator::judge() for the
// candidates that built and passed the static checks, one at a time. Candidates that failed
// earlier are finished on the compile thread (judge() only records the skipped GPU stages), so
// they never wait behind GPU work.
#pragma once
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "judge/evaluator.h"
#include "service/candidate_service.h"

namespace ptxbench {

struct LocalServiceOptions {
  EvalOptions eval;      // arch, workspace, GPU stage switches
  int compile_jobs = 0;  // 0: one per CPU core
};

class LocalCandidateService final : public CandidateService {
 public:
  LocalCandidateService(LocalServiceOptions options, ProgressFn progress);
  ~LocalCandidateService() override;
  LocalCandidateService(const LocalCandidateService&) = delete;
  LocalCandidateService& operator=(const LocalCandidateService&) = delete;

  CandidateTicket submit(CandidateJob job) override;
  ServiceLoad load() const override;
  GpuDescription describe_gpu() override;
  std::string arch() const override { return options_.eval.arch; }
  int compile_jobs() const { return static_cast<int>(compile_threads_.size()); }

 private:
  struct Work;
  void compile_loop();
  void gpu_loop();
  std::filesystem::path write_candidate(const std::string& source);

  LocalServiceOptions options_;
  ProgressFn progress_;
  Evaluator evaluator_;  // prepare() on every compile thread, judge() on the GPU lane only
  mutable std::mutex mutex_;
  std::condition_variable compile_cv_, gpu_cv_;
  std::deque<std::shared_ptr<Work>> compile_queue_, gpu_queue_;
  int compiling_ = 0, judging_ = 0;
  long long finished_ = 0;
  bool stopping_ = false;
  std::mutex gpu_description_mutex_;
  std::optional<GpuDescription> gpu_description_;
  std::vector<std::thread> compile_threads_;
  std::thread gpu_thread_;
};

}  // namespace ptxbench

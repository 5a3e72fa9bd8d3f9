// The in-process CandidateService: a compile pool of N threads and one GPU lane.
#include "service/local_candidate_service.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>

#include "core/arch.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "judge/candidate_files.h"
#include "judge/gpu_description.h"

namespace ptxbench {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

struct LocalCandidateService::Work {
  CandidateJob job;
  std::promise<CandidateResult> promise;
  CandidateResult result;
  std::optional<PreparedCandidate> prepared;
  Clock::time_point queued_at = Clock::now();
};

LocalCandidateService::LocalCandidateService(LocalServiceOptions options, ProgressFn progress)
    : options_(std::move(options)),
      progress_(std::move(progress)),
      evaluator_(
          [&] {
            if (options_.eval.worker.empty()) options_.eval.worker = locate_worker();
            if (options_.eval.workspace.empty()) options_.eval.workspace = ".ptxbench";
            // A model's candidates share a folder: each build may read its own file only, and its
            // compiler log names it candidate.cu (candidate.py for Triton).
            options_.eval.candidate_folder_readable = false;
            options_.eval.display_name = "candidate" + std::string(candidate_extension(options_.eval.language));
            return options_.eval;
          }(),
          progress_) {
  arch_info(options_.eval.arch);  // an unknown arch is an InputError before any thread starts
  int n = options_.compile_jobs > 0 ? options_.compile_jobs : static_cast<int>(std::thread::hardware_concurrency());
  if (n <= 0) n = 1;
  fs::create_directories(options_.eval.workspace / "candidates");
  for (int i = 0; i < n; ++i) compile_threads_.emplace_back([this] { compile_loop(); });
  gpu_thread_ = std::thread([this] { gpu_loop(); });
}

LocalCandidateService::~LocalCandidateService() {
  std::deque<std::shared_ptr<Work>> abandoned;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    abandoned.swap(compile_queue_);
    for (auto& w : gpu_queue_) abandoned.push_back(w);
    gpu_queue_.clear();
  }
  compile_cv_.notify_all();
  gpu_cv_.notify_all();
  for (auto& t : compile_threads_) t.join();
  gpu_thread_.join();
  for (auto& w : abandoned)
    w->promise.set_exception(
        std::make_exception_ptr(Error("the candidate service shut down before judging " + w->job.label)));
}

CandidateTicket LocalCandidateService::submit(CandidateJob job) {
  if (!job.problem) throw Error("CandidateService::submit: no problem given for " + job.label);
  auto w = std::make_shared<Work>();
  w->job = std::move(job);
  CandidateTicket ticket(w->promise.get_future().share());
  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw Error("the candidate service is shutting down");
    compile_queue_.push_back(std::move(w));
  }
  compile_cv_.notify_one();
  return ticket;
}

ServiceLoad LocalCandidateService::load() const {
  std::lock_guard lock(mutex_);
  return {static_cast<int>(compile_queue_.size()), compiling_, static_cast<int>(gpu_queue_.size()), judging_,
          finished_};
}

fs::path LocalCandidateService::write_candidate(const std::string& source) {
  return write_candidate_file(options_.eval.workspace / "candidates", source,
                              std::string(candidate_extension(options_.eval.language)));
}

void LocalCandidateService::compile_loop() {
  // judge() of a candidate that never reaches the GPU only records skipped stages; a separate
  // Evaluator per compile thread keeps judge() one call at a time per Evaluator.
  EvalOptions cpu_only = options_.eval;
  cpu_only.use_gpu = false;
  Evaluator static_judge(cpu_only, progress_);
  for (;;) {
    std::shared_ptr<Work> w;
    {
      std::unique_lock lock(mutex_);
      compile_cv_.wait(lock, [&] { return stopping_ || !compile_queue_.empty(); });
      if (stopping_) return;
      w = std::move(compile_queue_.front());
      compile_queue_.pop_front();
      ++compiling_;
    }
    w->result.timings.compile_wait_seconds = seconds_since(w->queued_at);
    bool to_gpu = false;
    try {
      const auto t0 = Clock::now();
      w->prepared = evaluator_.prepare(*w->job.problem, write_candidate(w->job.source));
      w->result.timings.prepare_seconds = seconds_since(t0);
      to_gpu = w->prepared->ready_for_gpu;
      if (!to_gpu) {
        w->result.record = static_judge.judge(*w->job.problem, std::move(*w->prepared));
        w->prepared.reset();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      --compiling_;
      ++finished_;
      w->promise.set_exception(std::current_exception());
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      --compiling_;
      if (to_gpu) {
        w->queued_at = Clock::now();
        gpu_queue_.push_back(w);
      } else {
        ++finished_;
      }
    }
    if (to_gpu) gpu_cv_.notify_one();
    else w->promise.set_value(std::move(w->result));
  }
}

void LocalCandidateService::gpu_loop() {
  for (;;) {
    std::shared_ptr<Work> w;
    {
      std::unique_lock lock(mutex_);
      gpu_cv_.wait(lock, [&] { return stopping_ || !gpu_queue_.empty(); });
      if (stopping_) return;
      w = std::move(gpu_queue_.front());
      gpu_queue_.pop_front();
      ++judging_;
    }
    w->result.timings.gpu_wait_seconds = seconds_since(w->queued_at);
    w->result.reached_gpu_lane = true;
    std::exception_ptr error;
    try {
      const auto t0 = Clock::now();
      w->result.record = evaluator_.judge(*w->job.problem, std::move(*w->prepared));
      w->result.timings.gpu_seconds = seconds_since(t0);
    } catch (...) {
      error = std::current_exception();
    }
    w->prepared.reset();
    {
      std::lock_guard lock(mutex_);
      --judging_;
      ++finished_;
    }
    if (error) w->promise.set_exception(error);
    else w->promise.set_value(std::move(w->result));
  }
}

GpuDescription LocalCandidateService::describe_gpu() {
  std::lock_guard lock(gpu_description_mutex_);
  if (gpu_description_) return *gpu_description_;
  GpuDescription d = describe_gpu_for(options_.eval);
  gpu_description_ = d;
  return d;
}

}  // namespace ptxbench

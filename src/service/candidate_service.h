// The one interface through which the agent (and `rescore`) has candidates judged: submit a
// candidate's source, get its evaluation record later. The in-process default
// (local_candidate_service.h) runs a bounded compile pool and one GPU lane over the Evaluator; the
// GPU profiling service can replace the GPU side behind this interface without the agent knowing.
#pragma once
#include <future>
#include <filesystem>
#include <string>

#include "core/json.h"
#include "core/record.h"
#include "judge/gpu_description.h"
#include "problems/problem_spec.h"

namespace ptxbench {

struct CandidateJob {
  const ProblemSpec* problem = nullptr;  // must outlive the ticket
  std::string source;                    // the candidate's bytes (a complete .cu file)
  std::string label;                     // for progress lines, e.g. "gemm/3/5"
  // The job's id in a persistent queue (engine_candidate_service.h): the same id is judged once,
  // even across a restart. Empty: a fresh id (judged again every time it is submitted).
  std::string job_id{};
  // The folder a file on the command line came from: its relative includes resolve there (on the
  // include path, readable to the build) as they do when the file is judged alone. Empty for a
  // model's reply. A host that lacks the folder (a remote `serve`) builds without it.
  std::filesystem::path source_folder{};
};

// Where the candidate's time went, measured by the service (wall seconds).
struct CandidateTimings {
  double compile_wait_seconds = 0;  // queued for a compile slot
  double prepare_seconds = 0;       // build + static checks
  double gpu_wait_seconds = 0;      // queued for the GPU lane (0 when it never went there)
  double gpu_seconds = 0;           // the GPU stages, or recording why they were skipped
};

struct CandidateResult {
  EvaluationRecord record;
  CandidateTimings timings;
  bool reached_gpu_lane = false;  // built and passed the static checks
};

// A submitted candidate. wait() blocks until its record is ready and rethrows what the service
// threw for it (a harness fault, never a verdict on the candidate).
class CandidateTicket {
 public:
  CandidateTicket() = default;
  explicit CandidateTicket(std::shared_future<CandidateResult> f) : future_(std::move(f)) {}
  CandidateResult wait() const { return future_.get(); }
  bool ready() const {
    return future_.valid() && future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  bool valid() const { return future_.valid(); }

 private:
  std::shared_future<CandidateResult> future_;
};

// How much work is where right now (for the progress line).
struct ServiceLoad {
  int compile_queued = 0, compiling = 0, gpu_queued = 0, judging = 0;
  long long finished = 0;
};

class CandidateService {
 public:
  virtual ~CandidateService() = default;
  // Never blocks on the work itself. Thread-safe.
  virtual CandidateTicket submit(CandidateJob job) = 0;
  virtual ServiceLoad load() const = 0;
  virtual GpuDescription describe_gpu() = 0;  // asks once, then answers from memory
  virtual std::string arch() const = 0;
};

}  // namespace ptxbench

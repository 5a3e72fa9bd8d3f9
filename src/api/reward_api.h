// The reward API's logic, without HTTP (http_server.h maps routes onto it): submissions made
// durable in the service's job queue before they are acknowledged, their status (long-polled),
// their results with the flat reward view, and the server's health. Every answer is an ApiResponse
// (an HTTP status, a JSON body, a Retry-After): a queue that fails is a 503 with its error, never
// an exception across the HTTP boundary.
//
// Idempotency: a client's key is the job's id (job_id_for_key), so a key is judged once however
// often it is sent, across restarts; the same key with a different candidate is 409.
#pragma once
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "api/admission.h"
#include "api/submission.h"
#include "core/json.h"
#include "problems/problem_spec.h"
#include "service/queue/job_queue.h"

namespace ptxbench::api {

struct ApiResponse {
  int status = 200;
  json body = json::object();
  int retry_after_seconds = 0;  // sent as Retry-After when > 0
};

// {"error": {"status", "message", "errors": [{where, what}]}}: the body of every refusal.
ApiResponse error_response(int status, const std::string& message, const std::vector<FieldError>& errors = {},
                           int retry_after_seconds = 0);

struct RewardApiOptions {
  SubmissionLimits limits;
  AdmissionOptions admission;
  double max_wait_seconds = 60;  // the longest long-poll (?wait=)
};

class RewardApi {
 public:
  // `notify_enqueued`: wakes the engine when candidates were queued (may be empty).
  RewardApi(JobQueue& queue, ServerFacts server, std::filesystem::path problems_root, RewardApiOptions options,
            std::function<void()> notify_enqueued = {});

  ApiResponse submit(const std::string& body);
  // The job's state; with wait_seconds > 0, answers once it ended or after that long.
  ApiResponse status(const std::string& key, double wait_seconds);
  ApiResponse result(const std::string& key);
  ApiResponse health();

  // From the engine (or a results stream): the job ended, long-polls may answer.
  void job_finished(const std::string& job_id);
  // Stopping: submissions are refused (503), status and results still answer, long-polls end.
  void set_draining(bool on);
  bool draining() const { return draining_; }

 private:
  ApiResponse unreachable(const std::string& what, const QueueStatus& s) const;
  const ProblemSpec* problem(const std::string& name);

  JobQueue& queue_;
  ServerFacts server_;
  std::filesystem::path problems_root_;
  RewardApiOptions options_;
  std::function<void()> notify_enqueued_;
  std::atomic<bool> draining_{false};
  std::mutex finished_mu_;
  std::condition_variable finished_cv_;
  long long finished_count_ = 0;  // changes whenever a job ends (long-polls wait for a change)
  std::mutex problems_mu_;
  std::map<std::string, std::unique_ptr<ProblemSpec>> problems_;
};

}  // namespace ptxbench::api

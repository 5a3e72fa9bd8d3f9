// A CandidateService for agent unit tests: no nvcc, no GPU. The verdict of a candidate is read
// from its source: a line "// verdict: <name>" (default not_run), "// speedup: <x>" for correct
// ones, "// target: no" or "// target: unknown" for a correct one whose target groups did not
// execute or were not counted; "// throw" makes the service fail (a harness fault). Judging takes a fixed time on one
// worker thread per submit; every submit is counted.
#pragma once
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <regex>
#include <thread>
#include <vector>

#include "core/content_hash.h"
#include "core/error.h"
#include "service/candidate_service.h"

namespace ptxbench::test {

class FakeCandidateService : public CandidateService {
 public:
  explicit FakeCandidateService(std::chrono::milliseconds judge_time = std::chrono::milliseconds(0))
      : judge_time_(judge_time) {}
  ~FakeCandidateService() override {
    for (auto& t : threads_) t.join();
  }

  CandidateTicket submit(CandidateJob job) override {
    ++submits_;
    auto promise = std::make_shared<std::promise<CandidateResult>>();
    CandidateTicket ticket(promise->get_future().share());
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, promise, job] {
      std::this_thread::sleep_for(judge_time_);
      if (job.source.find("// throw") != std::string::npos) {
        promise->set_exception(std::make_exception_ptr(Error("fake service fault")));
        return;
      }
      if (job.source.find("// infra-once") != std::string::npos && !infra_given_.exchange(true)) {
        CandidateResult r;
        r.record = record_for(job, "infra_error");
        promise->set_value(r);
        return;
      }
      std::smatch m;
      std::string verdict = "not_run";
      static const std::regex kVerdict(R"(// verdict: (\w+))");
      if (std::regex_search(job.source, m, kVerdict)) verdict = m[1];
      CandidateResult r;
      r.record = record_for(job, verdict);
      r.timings.prepare_seconds = 0.001;
      promise->set_value(r);
    });
    return ticket;
  }
  ServiceLoad load() const override { return {}; }
  GpuDescription describe_gpu() override { return {true, "Fake GPU", "", nullptr}; }
  std::string arch() const override { return "sm_90a"; }
  int submits() const { return submits_.load(); }

  static EvaluationRecord record_for(const CandidateJob& job, const std::string& verdict) {
    EvaluationRecord r;
    r.problem = job.problem ? job.problem->name : "?";
    r.arch = "sm_90a";
    r.gpu = "Fake GPU";
    r.candidate_path = "/ws/candidates/x.cu";
    r.candidate_sha256 = content_sha256(job.source);
    r.created_at = "2026-12-01T00:00:00Z";
    r.verdict = *verdict_from_string(verdict);
    r.reason = "fake: " + verdict;
    if (verdict == "compile_error")
      r.add_stage(
          {"build",
           StageStatus::failed,
           0.5,
           "x.cu:3: error: boom",
           {{"diagnostics",
             json::array({{{"file", "/ws/candidates/x.cu"}, {"line", 3}, {"severity", "error"}, {"message", "boom"}}})},
            {"verdict", "compile_error"}}});
    else r.add_stage({"build", StageStatus::ok, 0.5, "built", json::object()});
    if (verdict == "correct") {
      r.target_static = true;
      r.target_executed = true;
      if (job.source.find("// target: no") != std::string::npos) r.target_executed = false;
      if (job.source.find("// target: unknown") != std::string::npos) r.target_executed.reset();
      std::smatch m;
      static const std::regex kSpeed(R"(// speedup: ([0-9.]+))");
      r.speedup_geomean = std::regex_search(job.source, m, kSpeed) ? std::stod(m[1]) : 1.0;
      r.add_stage({"correctness", StageStatus::ok, 1, "all checks passed", json::object()});
    }
    return r;
  }

 private:
  std::chrono::milliseconds judge_time_;
  std::atomic<int> submits_{0};
  std::atomic<bool> infra_given_{false};
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

}  // namespace ptxbench::test

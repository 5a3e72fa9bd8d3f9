// The target work of one shape's timed samples from the hardware counters, nothing patched.
#include "runner/timed_work.h"

#include <chrono>
#include <cmath>

#include "runner/detail/cuda_check.h"

namespace ptxbench {

json call_work_json(const CallWork& w) {
  json values = json::object();  // NaN (not collected) goes as null: the judge names it unreadable
  for (const auto& [metric, v] : w.values) values[metric] = std::isfinite(v) ? json(v) : json(nullptr);
  return {{"values", values}};
}

namespace {
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void TimedWork::open(int library_calls, const std::function<void()>& library_call,
                     const std::function<void()>& library_samples, cudaStream_t s) {
  if (!counters_) return;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    counters_->start();
    library_calls_ = library_calls;
    if (library_calls > 0) {
      counters_->push("library");
      for (int i = 0; i < library_calls; ++i) library_call();
      counters_->pop();
      PTXBENCH_CUDA(cudaStreamSynchronize(s));  // before the samples, as after the warm-up calls
    }
    if (library_samples) {
      counters_->push("library_samples");
      library_samples();
      counters_->pop();
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      library_samples_ = true;
    }
    counters_->push("samples");
  } catch (const std::exception& e) {
    error_ = std::string("the range profiler did not start: ") + e.what();
  }
  seconds_ += since(t0);
}

void TimedWork::close(int candidate_calls, int library_calls_in_range, cudaStream_t s) {
  if (!counters_) return;
  const auto t0 = std::chrono::steady_clock::now();
  if (error_.empty()) {
    try {
      counters_->pop();
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      const auto ranges = counters_->stop();
      json j = {{"chip", counters_->chip()},
                {"math_class", counters_->formula().math_class},
                {"candidate_calls", candidate_calls},
                {"library_calls", library_calls_in_range}};
      for (const auto& r : ranges) {
        if (r.range == "samples") j["samples"] = call_work_json(r);
        else if (r.range == "library") j["library"] = {{"calls", library_calls_}, {"work", call_work_json(r)}};
        else if (r.range == "library_samples" && library_samples_)
          j["library_samples"] = {{"samples", 2}, {"work", call_work_json(r)}};
      }
      j["seconds"] = seconds_ + since(t0);
      if (!j.contains("samples")) error_ = "the range profiler returned no range for the samples";
      else result_ = std::move(j);
    } catch (const std::exception& e) {
      error_ = std::string("the range profiler's figures could not be read: ") + e.what();
    }
  }
  if (!error_.empty()) result_ = {{"error", error_}};
}

}  // namespace ptxbench

#include "inline_gpu_executor.h"

#include <thread>

namespace ptxbench::test {

PreparedJob InlineGpuExecutor::prepare(const LeasedJob& job) {
  PreparedJob p;
  std::this_thread::sleep_for(std::chrono::milliseconds(job.payload.value("prepare_ms", 0)));
  if (job.payload.value("build", "ok") == "compile_error") {
    p.result = {{"job", job.id}, {"verdict", "compile_error"}, {"reason", "nvcc failed"}, {"attempt", job.attempts}};
    return p;
  }
  p.needs_gpu = true;
  return p;
}

json InlineGpuExecutor::run_on_gpu(const LeasedJob& job, PreparedJob&, GpuLaneGate& gate, int device) {
  const auto ms = std::chrono::milliseconds(job.payload.value("ms", 5));
  const bool faulty = job.attempts <= job.payload.value("fault_attempts", 1);
  const std::string fault = faulty ? job.payload.value("fault", "") : "";
  json result = {{"job", job.id}, {"device", device}, {"attempt", job.attempts}};
  {
    auto use = gate.shared_use();
    std::this_thread::sleep_for(ms);
  }
  if (!fault.empty() && fault != "wrong") {
    result["verdict"] = "runtime_error";
    result["reason"] = "simulated fault: " + fault;
    return result;
  }
  if (fault == "wrong") {
    result["verdict"] = "incorrect";
    result["reason"] = "output mismatch (simulated)";
    return result;
  }
  TimedWorkerUse use(gate);
  use.become_exclusive();
  std::this_thread::sleep_for(ms);
  use.end();
  result["verdict"] = "correct";
  result["median_ms"] = std::chrono::duration<double, std::milli>(ms).count();
  return result;
}

bool InlineGpuExecutor::suspicious(const json& result) const { return result.value("verdict", "") == "runtime_error"; }

std::string InlineGpuExecutor::throttled_during_timing(const json&) const { return ""; }

}  // namespace ptxbench::test

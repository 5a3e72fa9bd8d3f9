// Reads the worker's events into the record: stage results, shape timings, an abnormal end's failure.
#include "judge/stages/worker_events.h"

#include <algorithm>

#include <signal.h>

#include "judge/stages/stage_results.h"
#include "core/json_integer.h"

namespace ptxbench {

StageResult from_worker_stage(const json& ev) {
  StageResult s;
  s.name = ev.at("name");
  s.status = ev.at("status") == "ok" ? StageStatus::ok : StageStatus::failed;
  s.message = ev.value("message", "");
  s.detail = ev;
  s.detail.erase("type");
  s.detail.erase("name");
  s.detail.erase("status");
  s.detail.erase("message");
  if (s.status == StageStatus::failed && !s.detail.contains("verdict")) s.detail["verdict"] = "incorrect";
  return s;
}

ShapeTiming to_shape_timing(const json& t) {
  ShapeTiming st;
  st.shape = json_integer_map(t.at("shape"), "worker timing.shape");
  const auto& c = t.at("candidate");
  st.median_ms = c.at("median_ms"), st.p10_ms = c.at("p10_ms"), st.p90_ms = c.at("p90_ms");
  st.spread = c.at("spread"), st.samples = json_integer<int>(c.at("samples"), "worker timing.candidate.samples");
  const double flops = t.at("flops");
  st.tflops = st.median_ms > 0 ? flops / (st.median_ms * 1e-3) / 1e12 : 0;
  if (t.contains("baseline")) {
    const auto& b = t.at("baseline");
    st.baseline_interleaved_ms = b.at("median_ms"), st.baseline_spread = b.at("spread"),
    st.baseline_samples = json_integer<int>(b.at("samples"), "worker timing.baseline.samples");
    // The faster of the library beside the candidate and alone (before the load; again after a
    // drift): a library slowed beside the candidate, by less than the drift that is forbidden,
    // earns the candidate nothing.
    st.baseline_median_ms = st.baseline_interleaved_ms, st.baseline_source = "interleaved";
    if (const auto alone = t.find("baseline_alone"); alone != t.end())
      for (const char* key : {"before_ms", "after_ms"})
        if (const double ms = alone->value(key, 0.0); ms > 0) {
          st.baseline_alone_ms = st.baseline_alone_ms > 0 ? std::min(st.baseline_alone_ms, ms) : ms;
          if (ms < st.baseline_median_ms) st.baseline_median_ms = ms, st.baseline_source = "alone";
        }
    st.baseline_tflops = st.baseline_median_ms > 0 ? flops / (st.baseline_median_ms * 1e-3) / 1e12 : 0;
    st.speedup = st.median_ms > 0 && st.baseline_median_ms > 0 ? st.baseline_median_ms / st.median_ms : 0;
  }
  st.throttled = t.value("throttled", false);
  return st;
}

StageResult abnormal_end(const std::string& stage, const WorkerRun& run) {
  std::string where = run.last_progress();
  std::string at = where.empty() ? "" : " (during " + where + ")";
  json detail = {{"process", run.process.describe()}, {"output", run.output_tail()}};
  if (!where.empty()) detail["during"] = where;
  // `kind` says how the run ended, for readers that classify failures (fixit_core/error_class.h).
  auto failed = [&](const char* kind, Verdict v, const std::string& message) {
    detail["kind"] = kind;
    return failed_stage(stage, v, message, detail);
  };
  if (run.tampered)
    return failed("channel_tampered", Verdict::forbidden,
                  "the worker's result channel was tampered with: " + *run.tampered);
  if (run.fatal) {
    std::string v = run.fatal->value("verdict", "runtime_error");
    std::string msg = run.fatal->value("message", "");
    if (v == "infra_error") return failed("harness", Verdict::infra_error, "harness error: " + msg + at);
    if (v == "forbidden") return failed("worker_rule", Verdict::forbidden, msg + at);
    return failed(v == "cuda_error" ? "cuda_error" : "worker_fatal", Verdict::runtime_error, msg + at);
  }
  if (run.process.timed_out)
    return failed("timeout", Verdict::runtime_error,
                  "timeout: the worker was killed after " + run.process.describe() + at);
  if (run.process.term_signal == SIGSYS)
    return failed("sandbox_syscall", Verdict::forbidden, "the sandbox stopped a forbidden system call (SIGSYS)" + at);
  // SIGKILL that is not the harness's own deadline came from outside (an operator, the host's OOM
  // killer, a dying harness): not the candidate's doing, so an infra error (the job runs again).
  if (run.process.term_signal == SIGKILL)
    return failed("outside_kill", Verdict::infra_error,
                  "harness error: the worker was killed from outside (SIGKILL)" + at);
  if (run.process.term_signal) {
    detail["signal"] = run.process.term_signal;
    return failed("crash", Verdict::runtime_error, "the candidate crashed the worker: " + run.process.describe() + at);
  }
  return failed("process_exit", Verdict::runtime_error,
                "the worker process ended before finishing (" + run.process.describe() + ")" + at +
                    ": the candidate exited the process or corrupted it");
}

StageResult timed_by(StageResult s, const WorkerRun& run) {
  s.seconds = run.process.seconds;
  return s;
}

}  // namespace ptxbench

#include "simulated_record_executor.h"

#include "core/record.h"
#include "core/timestamp.h"

namespace ptxbench::test {
namespace {

constexpr const char* kMarker = "simulated:";

LeasedJob simulated_job(const LeasedJob& job) {
  LeasedJob j = job;
  j.payload = simulated_spec_of(job.payload);
  if (j.payload.value("wrong", false)) j.payload["fault"] = "wrong";
  return j;
}

// The simulated stages' result as the record the Evaluator would have written.
json as_record_result(const json& sim, const json& spec, const LeasedJob& job, double gpu_seconds) {
  EvaluationRecord r;
  r.problem = job.payload.value("problem", "");
  r.arch = "sm_90a";
  r.gpu = "simulated GPU";
  r.created_at = utc_timestamp();
  r.candidate_path = "simulated";
  const std::string verdict = sim.value("verdict", "runtime_error");
  r.verdict = verdict_from_string(verdict).value_or(Verdict::runtime_error);
  r.reason = sim.value("reason", verdict == "correct" ? "all outputs match (simulated)" : "");
  const bool built = verdict != "compile_error";
  r.add_stage({"build", built ? StageStatus::ok : StageStatus::failed, 0.01, built ? "" : "nvcc failed (simulated)",
               json::object()});
  if (verdict == "correct") {
    const double speedup = spec.value("speedup", 1.0);
    ShapeTiming t;
    t.shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
    t.median_ms = sim.value("median_ms", 1.0);
    t.baseline_median_ms = t.median_ms * speedup;
    t.speedup = speedup;
    t.samples = 1;
    r.timing = {t};
    r.speedup_geomean = speedup;
    r.target_executed = spec.value("target", true);
    r.target_seen = r.target_executed;
    r.target_static = true;
    r.tensor_flop_share = *r.target_executed ? 1.0 : 0.0;
    r.tma_byte_share = *r.target_executed ? 1.0 : 0.0;
  }
  return {{"record", to_json(r)},
          {"timings", {{"prepare_seconds", 0.0}, {"gpu_seconds", gpu_seconds}}},
          {"device", sim.value("device", -1)},
          {"simulated", sim}};
}

}  // namespace

json simulated_spec_of(const json& api_payload) {
  const std::string source = api_payload.value("source", "");
  const auto at = source.find(kMarker);
  json spec = at == std::string::npos ? json::object()
                                      : json::parse(source.substr(at + std::string(kMarker).size()), nullptr, false);
  if (!spec.is_object()) spec = json::object();
  return spec;
}

PreparedJob SimulatedRecordExecutor::prepare(const LeasedJob& job) {
  PreparedJob p = inner_.prepare(simulated_job(job));
  if (!p.needs_gpu) p.result = as_record_result(p.result, simulated_spec_of(job.payload), job, 0);
  return p;
}

json SimulatedRecordExecutor::run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) {
  const auto t0 = std::chrono::steady_clock::now();
  const json sim = inner_.run_on_gpu(simulated_job(job), prepared, gate, device);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return as_record_result(sim, simulated_spec_of(job.payload), job, secs);
}

bool SimulatedRecordExecutor::suspicious(const json& result) const {
  return inner_.suspicious(result.value("simulated", json::object()));
}

std::string SimulatedRecordExecutor::throttled_during_timing(const json& result) const {
  return inner_.throttled_during_timing(result.value("simulated", json::object()));
}

}  // namespace ptxbench::test

// The real CandidateExecutor: Evaluator::prepare on the CPU pool, Evaluator::judge under the GPU's gate.
#include "service/engine/evaluator_executor.h"

#include <chrono>

#include "judge/candidate_files.h"
#include "judge/infra_fault.h"

namespace ptxbench {
namespace fs = std::filesystem;

namespace {

struct PreparedState {
  const ProblemSpec* problem = nullptr;
  PreparedCandidate candidate;
  double prepare_seconds = 0;
};

json result_of(const EvaluationRecord& r, double prepare_seconds, double gpu_seconds, int device) {
  return {{"record", to_json(r)},
          {"timings", {{"prepare_seconds", prepare_seconds}, {"gpu_seconds", gpu_seconds}}},
          {"device", device}};
}

}  // namespace

json candidate_payload(const std::string& problem, const std::string& source, const std::string& label,
                       const fs::path& source_folder) {
  json j = {{"problem", problem}, {"source", source}, {"label", label}};
  if (!source_folder.empty()) j["source_folder"] = source_folder.string();
  return j;
}

EvaluatorExecutor::EvaluatorExecutor(EvalOptions options, ProblemResolver problems, ProgressFn progress,
                                     bool cache_baselines)
    : options_(std::move(options)),
      problems_(std::move(problems)),
      progress_(std::move(progress)),
      cache_baselines_(cache_baselines),
      preparer_(options_, progress_) {
  fs::create_directories(options_.workspace / "candidates");
}

fs::path EvaluatorExecutor::write_candidate(const std::string& source) {
  try {
    return write_candidate_file(options_.workspace / "candidates", source,
                                std::string(candidate_extension(options_.language)));
  } catch (const Error& e) {
    throw InfraFault(e.what());
  }
}

PreparedJob EvaluatorExecutor::prepare(const LeasedJob& job) {
  auto state = std::make_shared<PreparedState>();
  state->problem = &problems_(job.payload.at("problem").get<std::string>());
  const auto t0 = std::chrono::steady_clock::now();
  state->candidate =
      preparer_.prepare(*state->problem, write_candidate(job.payload.at("source").get<std::string>()),
                        trust_source_folders_ ? job.payload.value("source_folder", std::string()) : std::string());
  state->prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  PreparedJob p;
  if (!state->candidate.ready_for_gpu) {
    // judge() of a candidate that never reaches a GPU only records the skipped stages.
    EvalOptions cpu_only = options_;
    cpu_only.use_gpu = false;
    Evaluator static_judge(cpu_only, progress_);
    p.result =
        result_of(static_judge.judge(*state->problem, std::move(state->candidate)), state->prepare_seconds, 0, -1);
    return p;
  }
  p.needs_gpu = true;
  p.state = state;
  return p;
}

std::unique_ptr<Evaluator> EvaluatorExecutor::take_evaluator(int device, GpuLaneGate& gate) {
  {
    std::lock_guard lock(mu_);
    auto& idle = idle_[device];
    if (!idle.empty()) {
      auto e = std::move(idle.back());
      idle.pop_back();
      return e;
    }
  }
  EvalOptions o = options_;
  o.device = device;
  o.lane_gate = &gate;
  if (cache_baselines_) o.baseline_cache = &baselines_;
  if (cache_baselines_ && !o.seed) o.reference_pool = &references_;  // a fixed seed (debugging) wants its own inputs
  return std::make_unique<Evaluator>(o, progress_);
}

void EvaluatorExecutor::give_back(int device, std::unique_ptr<Evaluator> e) {
  std::lock_guard lock(mu_);
  idle_[device].push_back(std::move(e));
}

json EvaluatorExecutor::run_on_gpu(const LeasedJob& job, PreparedJob& prepared, GpuLaneGate& gate, int device) {
  auto state = std::static_pointer_cast<PreparedState>(prepared.state);
  if (!state) throw InfraFault("job " + job.id + " reached a GPU lane without a prepared candidate");
  auto evaluator = take_evaluator(device, gate);
  const auto t0 = std::chrono::steady_clock::now();
  EvaluationRecord r;
  try {
    r = evaluator->judge(*state->problem, std::move(state->candidate));
  } catch (...) {
    give_back(device, std::move(evaluator));
    throw;
  }
  give_back(device, std::move(evaluator));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.verdict == Verdict::infra_error) throw InfraFault("GPU " + std::to_string(device) + ": " + r.reason);
  return result_of(r, state->prepare_seconds, secs, device);
}

bool EvaluatorExecutor::suspicious(const json& result) const {
  const auto& rec = result.at("record");
  return rec.value("verdict", "") == "runtime_error";
}

std::string EvaluatorExecutor::throttled_during_timing(const json& result) const {
  const auto& rec = result.at("record");
  if (!rec.contains("timing")) return {};
  for (const auto& t : rec.at("timing"))
    if (t.value("throttled", false)) return "NVML throttle reasons during the timed samples of " + t.at("shape").dump();
  return {};
}

}  // namespace ptxbench

// Makes a command's judge or CandidateService from its flags: sequential, in-process or the engine.
#include "service/service_factory.h"

#include "service/library_timing_source.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace ptxbench {

EvalOptions judge_options(const JudgeFlags& f) {
  EvalOptions o;
  o.arch = f.arch;
  o.language = f.language;
  o.workspace = f.workspace;
  o.worker = f.worker;
  o.use_gpu = f.use_gpu;
  o.sanitize = f.sanitize;
  o.probe = f.probe;
  o.timing = f.timing;
  o.accounting = f.accounting;
  o.device = f.device;
  o.include_dirs = f.include_dirs;
  o.readable_roots = f.readable_roots;
  // Only a judge that times the library on a GPU opens the table (on first use).
  if (f.library_timing_cache && f.use_gpu && f.timing && !f.workspace.empty())
    o.library_timings = workspace_library_timings(f.workspace / "ptxbench.db");
  o.library_check_samples = f.library_check_samples;
  return o;
}

EngineOptions engine_options(const EngineFlags& f) {
  // NVML numbers GPUs by PCI bus; so does CUDA with this order, for every process started from here.
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  EngineOptions o;
  o.devices = f.devices;
  o.shared_lanes = f.lanes;
  o.cpu_jobs = f.cpu_jobs > 0 ? f.cpu_jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  o.pipelining = !f.no_pipelining;
  if (f.no_pause) o.shared_pause_timeout = std::chrono::milliseconds(0);
  o.lease_ttl = std::chrono::seconds(f.lease_seconds);
  o.heartbeat_interval = std::chrono::milliseconds(f.lease_seconds * 250);
  return o;
}

std::unique_ptr<Evaluator> make_judge(const JudgeFlags& flags, ProgressFn progress) {
  return std::make_unique<Evaluator>(judge_options(flags), std::move(progress));
}

LocalServiceOptions local_service_options(const ServiceFlags& f) {
  LocalServiceOptions so;
  so.eval = judge_options(f.judge);
  so.compile_jobs = f.compile_jobs;
  return so;
}

EngineServiceOptions engine_service_options(const ServiceFlags& f) {
  EngineServiceOptions so;
  so.eval = judge_options(f.judge);
  so.engine = engine_options(f.engine_flags);
  if (f.device_picks_engine_gpu && so.engine.devices == std::vector<int>{0}) so.engine.devices = {f.judge.device};
  if (f.compile_jobs > 0) so.engine.cpu_jobs = f.compile_jobs;
  so.max_attempts = f.engine_flags.max_attempts;
  so.queue = f.engine_flags.queue;
  so.submit_only = f.engine_flags.submit_only;
  so.cache_baselines = f.judge.library_timing_cache;  // --no-cache: no workload-state caching at all
  return so;
}

std::unique_ptr<CandidateService> make_candidate_service(const ServiceFlags& f, ProgressFn progress) {
  if (f.engine) return std::make_unique<EngineCandidateService>(engine_service_options(f), std::move(progress));
  return std::make_unique<LocalCandidateService>(local_service_options(f), std::move(progress));
}

}  // namespace ptxbench

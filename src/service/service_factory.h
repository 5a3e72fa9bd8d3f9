// The one place a command gets its judge, or the service that judges many candidates, from what
// its flags say: `eval` (a judge for --sequential or one file, else the engine), `run`, `rescore`
// and `fixit build` (a CandidateService: the in-process compile pool and one GPU lane, or the
// service engine with its queue, lanes per GPU and health probes); `serve` takes its judge's and
// its engine's options from here too (judge_options, engine_options). cli/ declares the flags and
// fills these structs.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "judge/evaluator.h"
#include "service/candidate_service.h"
#include "service/engine/service_engine.h"
#include "service/engine_candidate_service.h"
#include "service/local_candidate_service.h"

namespace ptxbench {

// What a command's flags say about judging one candidate (--arch, --worker, --no-gpu,
// --no-sanitize, --no-probe, --no-timing, --no-accounting, --device, -I, --read-root).
struct JudgeFlags {
  std::string arch = "sm_90a";
  Language language = Language::cuda;
  std::filesystem::path workspace;
  std::filesystem::path worker;  // empty: beside this executable
  bool use_gpu = true, sanitize = true, probe = true, timing = true, accounting = true;
  int device = 0;
  std::vector<std::filesystem::path> include_dirs, readable_roots;
  // The library's clean timings kept in the workspace (judge/caches/library_timings.h); false:
  // --no-cache (neither read nor written; the engine's in-memory caches are off too).
  bool library_timing_cache = true;
  int library_check_samples = 5;  // --library-check-samples
};

// The service engine's flags (cli/engine_flags.h declares them): GPUs, lanes per GPU, the CPU
// pool, pipelining, and the job queue (--queue: the workspace's SQLite lease table, or Redis
// Streams shared by hosts; --submit-only: queue for `serve` workers elsewhere and wait).
struct EngineFlags {
  std::vector<int> devices{0};
  int lanes = 3;     // shared lanes per GPU
  int cpu_jobs = 0;  // 0: one per core
  bool no_pipelining = false;
  bool no_pause = false;  // --no-pause: timing drains the shared lanes (engine/gpu_gate.h)
  int max_attempts = 3;
  int lease_seconds = 120;   // a dead owner's jobs are re-leased after this
  std::string queue;         // empty: the workspace's SQLite queue; redis://HOST:PORT/[DB][?stream=NAME]
  bool submit_only = false;  // no engine here: `serve` workers on other hosts judge the jobs
  // A queue is named (--queue or --submit-only): only the engine can judge through it.
  bool names_a_queue() const { return !queue.empty() || submit_only; }
};

// How a command's candidates are judged.
struct ServiceFlags {
  JudgeFlags judge;
  // The service engine in process (or its queue) rather than the in-process compile pool and one GPU lane.
  bool engine = false;
  int compile_jobs = 0;  // builds at once; 0: one per core (the engine: EngineFlags::cpu_jobs)
  EngineFlags engine_flags;
  // With --devices left at its default, --device picks the engine's GPU (eval, fixit build);
  // false: the engine runs on --devices alone (run --service).
  bool device_picks_engine_gpu = true;
};

EvalOptions judge_options(const JudgeFlags& flags);
// Sets CUDA_DEVICE_ORDER=PCI_BUS_ID (unless set) so CUDA numbers GPUs as NVML does.
EngineOptions engine_options(const EngineFlags& flags);

// What make_candidate_service gives each service (pure: unit-tested).
LocalServiceOptions local_service_options(const ServiceFlags& flags);
EngineServiceOptions engine_service_options(const ServiceFlags& flags);

// One judge (the Evaluator) on this process's GPU lane.
std::unique_ptr<Evaluator> make_judge(const JudgeFlags& flags, ProgressFn progress);
// The candidate service the flags ask for.
std::unique_ptr<CandidateService> make_candidate_service(const ServiceFlags& flags, ProgressFn progress);

}  // namespace ptxbench

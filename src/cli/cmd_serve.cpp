// ptxbench serve: the GPU profiling service over the workspace's job queue, until stopped (or,
// with --exit-when-drained, until the queue is empty). Jobs come from any process that enqueues
// into the same database (`ptxbench service submit`), or with --http HOST:PORT over the reward API
// (src/api, docs/rl.md); results are stored in the queue.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <mutex>

#include "api/http_server.h"
#include "cli/commands.h"
#include "cli/engine_flags.h"
#include "cli/stop_signals.h"
#include "core/arch.h"
#include "core/error.h"
#include "judge/candidate_files.h"
#include "judge/gpu_description.h"
#include "problems/registry.h"
#include "service/engine/evaluator_executor.h"
#include "service/engine_candidate_service.h"
#include "service/health/health_probe.h"
#include "service/local_candidate_service.h"
#include "service/queue/queue_factory.h"
#include "service/queue/redis_job_queue.h"
#include "service/remote_workers.h"
#include "service/service_factory.h"
#include "service/status_writer.h"

namespace ptxbench::cli {
namespace {

struct ServeArgs {
  EngineFlags engine;
  std::string arch = "sm_90a";
  bool no_sanitize = false, no_probe = false, no_timing = false, exit_when_drained = false, no_health = false,
       no_cache = false;
  int library_check_samples = 5;
  std::string http;  // --http HOST:PORT: the reward API
  long long max_queue_depth = 10000;
  int http_threads = 64;
};

// <workspace>/service/http.json: where this workspace's reward API listens (its clients on this
// host, and the tests, read the bound port there).
void write_endpoint_file(const std::filesystem::path& workspace, const std::string& url) {
  std::filesystem::create_directories(workspace / "service");
  const auto path = workspace / "service" / "http.json";
  const auto tmp = path.string() + ".tmp";
  std::ofstream(tmp) << json{{"url", url}, {"pid", getpid()}}.dump() << "\n";
  std::filesystem::rename(tmp, path);
}

void run_serve(const ServeArgs& a, const GlobalOptions& g) {
  arch_info(a.arch);
  const std::optional<api::ListenAddress> http =
      a.http.empty() ? std::nullopt : std::optional(api::parse_listen_address(a.http));
  JudgeFlags judge;
  judge.arch = a.arch;
  judge.workspace = workspace_dir(g);
  judge.worker = locate_worker();
  judge.sanitize = !a.no_sanitize, judge.probe = !a.no_probe, judge.timing = !a.no_timing;
  judge.library_timing_cache = !a.no_cache;
  judge.library_check_samples = a.library_check_samples;
  const EvalOptions eval = judge_options(judge);
  const EngineOptions engine_opts = engine_options(a.engine);
  const QueueChoice queue_choice{a.engine.queue, eval.workspace / "ptxbench.db", a.engine.max_attempts};
  std::unique_ptr<JobQueue> queue_ptr = open_job_queue(queue_choice);
  JobQueue& queue = *queue_ptr;
  auto* redis = dynamic_cast<RedisJobQueue*>(queue_ptr.get());  // shared by hosts: publish this worker's state there

  const GpuDescription gpu = describe_gpu_for(eval);
  spdlog::info("serve: {} ({}); {} GPU(s) x {} lanes, {} CPU jobs, pipelining {}; queue {}", gpu.gpu,
               gpu.gpu_stages ? "GPU stages on" : gpu.reason, engine_opts.devices.size(), engine_opts.shared_lanes,
               engine_opts.cpu_jobs, engine_opts.pipelining ? "on" : "off", describe_queue(queue_choice));
  ProblemRegistry registry(problems_root(g));
  std::mutex problems_mu;
  std::map<std::string, std::unique_ptr<ProblemSpec>> problems;
  EvaluatorExecutor executor(
      eval,
      [&](const std::string& name) -> const ProblemSpec& {
        std::lock_guard lock(problems_mu);
        auto& p = problems[name];
        if (!p) p = std::make_unique<ProblemSpec>(registry.load(name));
        return *p;
      },
      [](const std::string& line) { spdlog::debug("{}", line); }, !a.no_cache);
  executor.trust_source_folders(redis == nullptr);
  std::unique_ptr<ProcessHealthProbe> probe;
  if (gpu.gpu_stages && !a.no_health)
    probe =
        std::make_unique<ProcessHealthProbe>(locate_health_probe(), eval.workspace / "jobs", std::chrono::seconds(60));
  const auto workspace = eval.workspace;
  ServiceEngine engine(queue, executor, probe.get(), engine_opts, {}, [workspace, &executor](const FaultRecord& f) {
    spdlog::warn("fault on GPU {}: {} {} {}", f.device, f.kind, f.job, f.reason);
    if (f.device >= 0) executor.gpu_fault(f.device);
    append_fault(workspace, f);
  });
  std::unique_ptr<api::RewardApi> reward_api;
  std::unique_ptr<api::HttpServer> http_server;
  if (http) {
    api::ServerFacts facts{a.arch, "cuda", {}};
    for (const auto& name : registry.names()) facts.problems.insert(name);
    api::RewardApiOptions api_options;
    api_options.admission.max_queue_depth = a.max_queue_depth;
    reward_api = std::make_unique<api::RewardApi>(queue, facts, registry.root(), api_options,
                                                  [&engine] { engine.notify_enqueued(); });
  }
  engine.on_finished = [&reward_api](const std::string& id) {
    spdlog::info("finished {}", id);
    if (reward_api) reward_api->job_finished(id);
  };
  std::atomic<bool> stop{false};
  StopSignals signals([&](const char* name) {
    spdlog::warn("{}: stopping after the jobs in flight (again to stop at once)", name);
    stop = true;
  });
  engine.start();
  if (reward_api) {
    http_server =
        std::make_unique<api::HttpServer>(*reward_api, *http, api::HttpServerOptions{.threads = a.http_threads});
    write_endpoint_file(workspace, http_server->url());
    spdlog::info("serve: the reward API on {} (queue depth limit {})", http_server->url(), a.max_queue_depth);
  }
  ServiceStatusWriter status(workspace, engine_opts.devices, [&] {
    json s = engine.snapshot();
    s["baseline_cache"] = {{"enabled", !a.no_cache}, {"hits", executor.cache_hits()}};
    s["reference_pool"] = executor.reference_pool_stats();
    s["reference_pool"]["enabled"] = !a.no_cache;
    return s;
  });
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  auto last_publish = std::chrono::steady_clock::now() - kWorkerStateTtl;
  while (!stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (redis && std::chrono::steady_clock::now() - last_publish > kWorkerStateTtl / 5) {
      json state = worker_state(engine.snapshot(), gpu, host);
      state["baseline_cache"] = {{"enabled", !a.no_cache}, {"hits", executor.cache_hits()}};
      if (auto s = redis->publish_worker(engine.options().owner, state, kWorkerStateTtl); !s.ok)
        spdlog::warn("{}", s.error);
      last_publish = std::chrono::steady_clock::now();
    }
    if (a.exit_when_drained) {
      QueueCounts c;
      if (queue.counts(&c).ok && c.queued == 0 && c.leased == 0 && engine.snapshot()["counters"]["in_flight"] == 0)
        break;
    }
  }
  // Draining: new submissions are refused (503), status and results still answer while the jobs
  // in flight end; a queued job stays in the queue for the next start.
  if (reward_api) reward_api->set_draining(true);
  engine.stop();
  if (http_server) http_server->stop();
}

}  // namespace

void add_serve_command(CLI::App& app, GlobalOptions& g, ExitCode& code) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve",
                                 "Run the GPU profiling service over the workspace's job queue: per GPU an "
                                 "exclusive timing lane and shared lanes, a CPU pool for builds, health probes");
  add_engine_flags(cmd, a->engine);
  cmd->add_option("--arch", a->arch, "Target architecture")->check(arch_validator())->capture_default_str();
  cmd->add_flag("--no-sanitize", a->no_sanitize, "Skip compute-sanitizer");
  cmd->add_flag("--no-probe", a->no_probe, "Skip counting the executed target instructions");
  cmd->add_flag("--no-timing", a->no_timing,
                "Skip timing (target_executed is then unknown: the timed calls decide it)");
  cmd->add_flag("--no-health-probe", a->no_health, "No health probes or thermal screening (not for measurements)");
  cmd->add_flag("--no-cache", a->no_cache,
                "No workload-state caching: the library timed alone for every candidate (its "
                "clean timings neither read from nor kept in the workspace), every reference "
                "computed by its own check");
  cmd->add_option("--library-check-samples", a->library_check_samples,
                  "Samples of the short check that re-validates a stored clean timing of the library (default 5)")
      ->check(CLI::Range(1, 200));
  cmd->add_flag("--exit-when-drained", a->exit_when_drained, "Stop once nothing is queued or running");
  cmd->add_option("--http", a->http,
                  "Serve the reward API (HTTP, JSON; docs/rl.md) on HOST:PORT (port 0: a free one, written to "
                  "<workspace>/service/http.json)");
  cmd->add_option("--max-queue-depth", a->max_queue_depth,
                  "The reward API answers 429 (Retry-After) while this many jobs are queued or running")
      ->check(CLI::Range(1LL, 100000000LL))
      ->capture_default_str();
  cmd->add_option("--http-threads", a->http_threads, "Concurrent HTTP requests (each long-poll holds one)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  cmd->callback([a, &g, &code] {
    run_serve(*a, g);
    code.value = 0;
  });
}

}  // namespace ptxbench::cli

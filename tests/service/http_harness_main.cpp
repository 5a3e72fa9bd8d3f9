// service_http_harness: `ptxbench serve --http` with the simulated GPU stage, as one process the
// reward API's load and fault tests drive over HTTP and kill -9: the same RewardApi and HttpServer
// (src/api) over the same engine and queue (SQLite, or Redis with --queue), with the candidates'
// GPU stages simulated (simulated_record_executor.h). Runs until SIGTERM or SIGINT, then drains.
//   service_http_harness --workspace DIR --fake-worker EXE --problems DIR [--http HOST:PORT]
//     [--queue redis://...] [--max-queue-depth N] [--lease-ms N] [--shared-lanes N] [--cpu-jobs N]
//     [--inline-gpu]
// --inline-gpu simulates the GPU stages in-process (inline_gpu_executor.h: a sleep under the gate,
// no fake worker processes), so a load test measures the API, the queue and the engine.
// The bound URL is written to DIR/service/http.json, as serve writes it.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <thread>

#include "api/http_server.h"
#include "problems/registry.h"
#include "service/engine/service_engine.h"
#include "service/queue/queue_factory.h"
#include "inline_gpu_executor.h"
#include "simulated_record_executor.h"

using namespace ptxbench;

namespace {
std::atomic<bool> stop_requested{false};
}

int main(int argc, char** argv) {
  std::string workspace, worker, problems, http = "127.0.0.1:0", queue_url;
  long long max_depth = 100000;
  int lease_ms = 3000, shared_lanes = 3, cpu_jobs = 2;
  bool inline_gpu = false;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--inline-gpu") {
      inline_gpu = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "missing the value of " << a << "\n";
      return 2;
    }
    const std::string v = argv[i + 1];
    if (a == "--workspace") workspace = v;
    else if (a == "--fake-worker") worker = v;
    else if (a == "--problems") problems = v;
    else if (a == "--http") http = v;
    else if (a == "--queue") queue_url = v;
    else if (a == "--max-queue-depth") max_depth = std::stoll(v);
    else if (a == "--lease-ms") lease_ms = std::stoi(v);
    else if (a == "--shared-lanes") shared_lanes = std::stoi(v);
    else if (a == "--cpu-jobs") cpu_jobs = std::stoi(v);
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  try {
    const std::filesystem::path ws = workspace;
    std::filesystem::create_directories(ws / "service");
    setenv("PTXBENCH_FAKE_GPU_STATE", (ws / "gpus").c_str(), 1);
    auto queue = open_job_queue({queue_url, ws / "ptxbench.db", 4});
    test::SimulatedExecutor simulated(worker, ws / "jobs", std::chrono::milliseconds(2000));
    test::InlineGpuExecutor in_process;
    test::SimulatedRecordExecutor executor(inline_gpu ? static_cast<CandidateExecutor&>(in_process)
                                                      : static_cast<CandidateExecutor&>(simulated));
    ProcessHealthProbe probe(test::fake_worker_launch(worker, ws / "jobs", std::chrono::seconds(10)));
    ServiceEngine engine(*queue, executor, &probe, test::simulated_engine_options(shared_lanes, cpu_jobs, lease_ms, 4),
                         test::simulated_monitor_options());
    api::ServerFacts facts{"sm_90a", "cuda", {}};
    ProblemRegistry registry(problems);
    for (const auto& n : registry.names()) facts.problems.insert(n);
    api::RewardApiOptions options;
    options.admission.max_queue_depth = max_depth;
    options.admission.retry_after_seconds = 1;
    options.admission.draining_retry_after_seconds = 1;
    api::RewardApi reward_api(*queue, facts, problems, options, [&engine] { engine.notify_enqueued(); });
    engine.on_finished = [&reward_api](const std::string& id) { reward_api.job_finished(id); };
    signal(SIGTERM, [](int) { stop_requested = true; });
    signal(SIGINT, [](int) { stop_requested = true; });
    engine.start();
    api::HttpServer server(reward_api, api::parse_listen_address(http), {.threads = 64});
    {
      const auto tmp = ws / "service" / "http.json.tmp";
      std::ofstream(tmp) << json{{"url", server.url()}, {"pid", getpid()}}.dump() << "\n";
      std::filesystem::rename(tmp, ws / "service" / "http.json");
    }
    std::cerr << "service_http_harness: " << server.url() << "\n";
    while (!stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reward_api.set_draining(true);
    engine.stop();
    server.stop();
  } catch (const std::exception& e) {
    std::cerr << "service_http_harness: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

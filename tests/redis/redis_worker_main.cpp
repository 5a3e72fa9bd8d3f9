// service_redis_worker: one GPU host of the Redis fault tests. The service engine (2 simulated
// GPUs x 2 lanes, the real lease/heartbeat/monitor code) over the Redis queue, with the simulated
// GPU stage of tests/service, until SIGTERM; publishes its snapshot for `service status`.
//   service_redis_worker --queue URL --fake-worker EXE --dir DIR --stored-log FILE [--lease-ms N]
#include <signal.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "recording_queue.h"
#include "service/engine/service_engine.h"
#include "service/queue/redis_job_queue.h"
#include "simulated_executor.h"

using namespace ptxbench;

namespace {
std::atomic<bool> stop_requested{false};
}

int main(int argc, char** argv) {
  std::string url, worker, dir, log;
  int lease_ms = 1500;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--queue") url = v;
    else if (a == "--fake-worker") worker = v;
    else if (a == "--dir") dir = v;
    else if (a == "--stored-log") log = v;
    else if (a == "--lease-ms") lease_ms = std::stoi(v);
  }
  std::filesystem::create_directories(dir);
  setenv("PTXBENCH_FAKE_GPU_STATE", (std::filesystem::path(dir) / "gpus").c_str(), 1);  // this host's GPUs
  signal(SIGTERM, [](int) { stop_requested = true; });
  RedisJobQueue redis(parse_redis_url(url), {.max_attempts = 5});
  if (!redis.status().ok) {
    std::cerr << redis.status().error << "\n";
    return 2;
  }
  test::RecordingQueue queue(redis, log);
  test::SimulatedExecutor executor(worker, std::filesystem::path(dir) / "jobs", std::chrono::milliseconds(1000));
  ProcessHealthProbe probe(
      test::fake_worker_launch(worker, std::filesystem::path(dir) / "jobs", std::chrono::seconds(10)));
  const EngineOptions o = test::simulated_engine_options(2, 1, lease_ms, 5);
  const MonitorOptions m = test::simulated_monitor_options();
  ServiceEngine engine(queue, executor, &probe, o, m);
  engine.start();
  while (!stop_requested) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    if (auto s = redis.publish_worker(engine.options().owner, engine.snapshot(), std::chrono::seconds(3)); !s.ok)
      std::cerr << s.error << "\n";
  }
  engine.stop();
  return 0;
}

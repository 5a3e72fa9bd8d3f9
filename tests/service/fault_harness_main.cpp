// service_fault_harness: the service engine over a workspace database with the simulated GPU
// stage, as one process the fault-injection tests can kill -9 and start again.
//   service_fault_harness --db FILE --fake-worker EXE [--enqueue N --prefix P] [--lease-ms N] [--ms N]
// With --enqueue it is the whole harness (submits N jobs idempotently, then serves); without,
// it is the dispatcher alone. It exits 0 once the queue holds nothing queued or leased.
#include <iostream>

#include "fault_mix.h"
#include "service/engine/service_engine.h"
#include "service/queue/sqlite_job_queue.h"
#include "simulated_executor.h"

using namespace ptxbench;

int main(int argc, char** argv) {
  std::string db, worker, prefix = "job";
  int enqueue = 0, lease_ms = 1000, ms = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--db") db = v;
    else if (a == "--fake-worker") worker = v;
    else if (a == "--enqueue") enqueue = std::stoi(v);
    else if (a == "--prefix") prefix = v;
    else if (a == "--lease-ms") lease_ms = std::stoi(v);
    else if (a == "--ms") ms = std::stoi(v);
  }
  SqliteJobQueue queue(db, {.max_attempts = 4});
  if (!queue.status().ok) {
    std::cerr << queue.status().error << "\n";
    return 2;
  }
  for (int i = 0; i < enqueue; ++i)
    if (auto s = queue.enqueue(prefix + "-" + std::to_string(i), test::payload_of(i, ms), nullptr); !s.ok) {
      std::cerr << s.error << "\n";
      return 2;
    }
  const auto dir = std::filesystem::path(db).parent_path();
  test::SimulatedExecutor executor(worker, dir / "jobs", std::chrono::milliseconds(1000));
  ProcessHealthProbe probe(test::fake_worker_launch(worker, dir / "jobs", std::chrono::seconds(10)));
  const EngineOptions o = test::simulated_engine_options(3, 2, lease_ms, 4);
  const MonitorOptions m = test::simulated_monitor_options();
  ServiceEngine engine(queue, executor, &probe, o, m);
  engine.start();
  engine.wait_until_drained();
  engine.stop();
  return 0;
}

// How the evaluator starts ptxbench-worker: its launch, a shared-use run, a run under a tool.
#include "judge/stages/worker_runs.h"

#include "judge/shared_pause_link.h"

namespace ptxbench {
namespace fs = std::filesystem;

WorkerLaunch worker_launch(const EvalOptions& o, const fs::path& so, std::chrono::seconds timeout,
                           std::vector<std::string> wrapper) {
  WorkerLaunch l;
  l.worker = o.worker;
  l.job_dir = o.workspace / "jobs";
  l.wrapper = std::move(wrapper);
  l.tool_log = !l.wrapper.empty();
  l.timeout = timeout;
  if (!so.empty()) l.readable.push_back(fs::absolute(so).parent_path());
  l.readable.insert(l.readable.end(), o.worker_readable.begin(), o.worker_readable.end());
  return l;
}

WorkerRun run_sharing_gpu(GpuLaneGate* gate, const WorkerLaunch& launch, const WorkerJob& job) {
  // An eval worker with the activity monitor and no timed shapes pauses between its calls when a
  // timed worker wants the GPU alone; its report of its GPU work is checked against that window.
  if (gate && job.mode == "eval" && job.accounting && !job.timing && launch.wrapper.empty()) {
    SharedPauseLink link;
    WorkerLaunch pausable = launch;
    pausable.pause_link = &link;
    WorkerRun run;
    {
      auto use = gate->shared_use(&link);
      run = run_worker(pausable, to_json(job));
    }
    run.shared_pauses = link.pauses();
    run.pause_violation = link.violation();
    return run;
  }
  auto use = gate ? gate->shared_use() : nullptr;
  return run_worker(launch, to_json(job));
}

std::future<ToolRun> start_tool_run(const EvalOptions& o, const fs::path& so, std::vector<std::string> wrapper,
                                    WorkerJob job) {
  WorkerLaunch l = worker_launch(o, so, std::chrono::seconds(420), std::move(wrapper));
  return std::async(std::launch::async, [gate = o.lane_gate, l, job] {
    WorkerRun run = run_sharing_gpu(gate, l, job);
    std::string log = run.tool_log;
    return ToolRun{std::move(run), std::move(log)};
  });
}

}  // namespace ptxbench

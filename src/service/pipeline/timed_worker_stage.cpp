// With a lane gate, the eval job's timed shapes in a worker of their own, once the shared part
// passed: it starts under shared use of the GPU and holds exclusive use from just before its first
// timed sample (service/exclusive_handshake.h); the library's clean timings come from and go to the
// baseline cache when there is one.
#include "service/engine/baseline_cache.h"
#include "service/engine/timed_split.h"
#include "service/infra_fault.h"
#include "service/pipeline/gpu_stages.h"
#include "service/pipeline/worker_events.h"

namespace ptxbench {

StageStop run_timed_worker(GpuStageRun& c) {
  const ProblemSpec& p = c.problem;
  const EvalOptions& o = c.options;
  if (!o.lane_gate || !o.timing || !shared_part_passed(*c.eval_run)) return {};
  c.note("timing: exclusive use of GPU " + std::to_string(o.device) + " vs " + p.baseline);
  json timed_job = timed_part_of(c.eval_job);
  const std::string cache_scope = p.name + "|" + c.gpu.value("gpu", "") + "|" + o.timing_config.dump();
  if (o.baseline_cache) timed_job["baseline_alone_cache"] = o.baseline_cache->lookup(cache_scope, o.device, c.eval_job.at("timing"));
  // Shared while the worker starts; exclusive once it asks, before its first timed sample.
  TimedWorkerUse use(*o.lane_gate);
  WorkerLaunch launch = c.launch(std::chrono::seconds(900));
  launch.exclusive_gpu = [&use] { use.become_exclusive(); };
  c.timed_run = run_worker(launch, timed_job);
  // Its samples were then taken beside other lanes' work: not a time to keep (our worker's fault).
  if (c.timed_run->done && !use.exclusive())
    throw InfraFault("the timed worker finished without asking for exclusive use of the GPU: its timings are not kept");
  if (c.timed_run->tampered) {
    c.record.add_stage(timed_by(abnormal_end("integrity", *c.timed_run), *c.timed_run));
    return "the timed worker's result channel was tampered with";
  }
  if (o.baseline_cache && c.timed_run->done) o.baseline_cache->store(cache_scope, o.device, c.timed_run->of_type("baseline_alone"));
  return {};
}

}  // namespace ptxbench

// Asks the worker (--info) whether the GPU stages can run with these options, on what GPU, or why not.
#include "judge/gpu_description.h"

#include "core/arch.h"
#include "judge/candidate_files.h"
#include "judge/worker_client.h"

namespace ptxbench {

GpuDescription describe_gpu_for(const EvalOptions& options) {
  GpuDescription d;
  if (!options.use_gpu) {
    d.reason = "--no-gpu: static checks only";
  } else {
    // An empty worker path means the one beside this executable, as the Evaluator takes it (ptxbench
    // doctor describes the GPU before any Evaluator exists).
    const auto worker = options.worker.empty() ? locate_worker() : options.worker;
    // The job folder absolute: the worker starts in a folder of its own, where a relative one (the
    // default workspace, .ptxbench) names nothing (the H100 showed doctor failing so).
    auto run = run_worker(worker, nullptr, std::filesystem::absolute(options.workspace / "jobs"), {},
                          std::chrono::seconds(60), {"--info"});
    if (run.tampered) {
      d.reason = "no usable GPU (the worker's --info report failed verification: " + *run.tampered + ")";
    } else if (auto h = run.hello(); h && run.done) {
      d.hello = *h;
      d.gpu = h->value("gpu", "unknown GPU");
      const std::string cc = h->value("cc", "");
      if (cc != arch_info(options.arch).compute_capability)
        d.reason = "the GPU (" + d.gpu + ", compute capability " + cc + ") cannot run " + options.arch +
                   " code: static checks only";
    } else if (run.fatal) {
      d.reason = "no usable GPU (" + run.fatal->value("message", "the worker found no GPU") + ")";
    } else {
      d.reason = "no usable GPU (the worker could not start: " + run.process.describe() + ")";
    }
  }
  d.gpu_stages = d.reason.empty();
  return d;
}

}  // namespace ptxbench

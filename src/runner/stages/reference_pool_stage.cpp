// Before the candidate loads: the service's reference pool filled for the correctness stage
// (judge/caches/reference_pool.h on the host; host side: eval_worker_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <chrono>

#include "core/timestamp.h"
#include "runner/reference_client.h"

namespace ptxbench {

void make_pooled_references(WorkerContext& ctx, const WorkerJob& job) {
  if (ctx.reference_fd < 0) return;
  ctx.channel.emit({{"type", "progress"}, {"stage", "reference_pool"}});
  const auto t0 = std::chrono::steady_clock::now();
  ReferenceClient pool(ctx.reference_fd);
  auto s = ctx.stream.get();
  int given = 0, made = 0;
  std::string not_pooled;
  const auto& items = job.correctness;
  for (size_t index = 0; index < items.size(); ++index) {
    const CorrectnessItem& item = items[index];
    if (!item.pool) continue;
    const ReferencePoolPlan& plan = *item.pool;
    const std::string key = item.shape.dump();
    ctx.workload.prepare(item.shape.get<WorkloadShape>());
    if (ctx.workload.reference_buffers().empty()) {
      not_pooled = "this workload's references are not pooled (it names no reference buffers)";
      continue;
    }
    auto& seeds = ctx.pooled_seeds[index];
    for (const uint64_t seed : plan.seeds) seeds.push_back(seed), ++given;
    for (int i = 0; i < plan.fresh; ++i, ++made) {
      const uint64_t seed = ctx.draw_seed();
      ctx.workload.generate_inputs(seed, s);
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      const auto t_reference = std::chrono::steady_clock::now();
      ctx.workload.compute_reference(s);
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      pool.put(key, seed, seconds_since(t_reference), ctx.workload, s);
      discard_reference(ctx.workload, s);
      seeds.push_back(seed);
    }
  }
  pool.seal();
  json ev = {{"type", "reference_pool"}, {"pooled", given}, {"made", made}, {"seconds", seconds_since(t0)}};
  if (!not_pooled.empty()) ev["not_pooled"] = not_pooled;
  ctx.channel.emit(ev);
}

}  // namespace ptxbench

// The integrity stage: the GPU activity audit so far (host side: judge/stages/integrity_stage.cpp).
#include "runner/stages/worker_stages.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "core/timestamp.h"
#include "runner/integrity/gpu_activity_monitor.h"

namespace ptxbench {

bool run_integrity_audit(WorkerContext& ctx, const std::string& after, bool final_report) {
  auto* monitor = GpuActivityMonitor::instance();
  if (!monitor) return true;
  const auto started = std::chrono::steady_clock::now();
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  monitor->flush();
  const Observations obs = monitor->observations();
  const auto violations = audit(obs);
  if (violations.empty() && !final_report) return true;
  json list = json::array();
  for (const auto& v : violations) list.push_back({{"rule", v.rule}, {"message", v.message}});
  json refused = json::array();
  for (const auto& e : obs.api_events)
    if (e.refused) refused.push_back(e.api);
  std::set<std::string> kernels;
  size_t candidate_kernels = 0, baseline_kernels = 0, harness_kernels = 0;
  std::map<uint32_t, const Launch*> by_corr;
  for (const auto& l : obs.launches) by_corr[l.correlation] = &l;
  for (const auto& w : obs.work) {
    if (w.kind != DeviceWork::Kind::kernel) continue;
    auto it = by_corr.find(w.correlation);
    const auto actor = it == by_corr.end() ? Actor::harness : it->second->actor;
    if (is_candidate(actor)) ++candidate_kernels, kernels.insert(w.name);
    else if (actor == Actor::baseline) ++baseline_kernels;
    else ++harness_kernels;
  }
  json modules = json::array();
  for (const auto& m : obs.modules)
    if (m.candidate_image || is_candidate(m.actor))
      modules.push_back({{"bytes", m.bytes}, {"candidate_image", m.candidate_image}, {"functions", m.functions}});
  json stage = {
      {"type", "stage"},
      {"name", "integrity"},
      {"after", after},
      {"candidate_calls", std::count_if(obs.calls.begin(), obs.calls.end(),
                                        [](const auto& c) { return c.actor == Actor::candidate_call; })},
      {"kernels", {{"candidate", candidate_kernels}, {"baseline", baseline_kernels}, {"harness", harness_kernels}}},
      {"candidate_kernel_names", kernels},
      {"candidate_modules", modules},
      {"refused_entry_points", refused},
      {"dropped_records", obs.dropped_records},
      {"violations", list},
      {"map_and_stream_seconds", monitor->map_and_stream_seconds()},
      // The synchronize, CUPTI's flush and the audit: in a timed worker, inside its exclusive window.
      {"audit_seconds", seconds_since(started)}};
  if (!violations.empty()) {
    stage["status"] = "failed";
    stage["verdict"] = "forbidden";
    stage["message"] = violations.front().message +
                       (violations.size() > 1 ? " (+" + std::to_string(violations.size() - 1) + " more)" : "");
  } else if (obs.dropped_records > 0) {
    stage["status"] = "failed";
    stage["verdict"] = "infra_error";
    stage["message"] = "CUPTI dropped " + std::to_string(obs.dropped_records) +
                       " activity records: the GPU work could not all be accounted for";
  } else {
    stage["status"] = "ok";
    stage["message"] =
        std::to_string(candidate_kernels) +
        " candidate kernels accounted for, all on the given stream, from its own code" +
        (refused.empty() ? "" : "; " + std::to_string(refused.size()) + " entry-point request(s) refused");
  }
  ctx.channel.emit(stage);
  return violations.empty() && obs.dropped_records == 0;
}

}  // namespace ptxbench

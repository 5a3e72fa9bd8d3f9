// What serve workers on other hosts publish through the Redis queue, read back for status.
#include "service/remote_workers.h"

#include <thread>

#include "core/timestamp.h"

namespace ptxbench {

json worker_state(const json& engine_snapshot, const GpuDescription& gpu, const std::string& host) {
  json s = engine_snapshot;
  s["host"] = host;
  s["published_at"] = utc_timestamp_ms();
  s["gpu"] = {{"name", gpu.gpu}, {"gpu_stages", gpu.gpu_stages}, {"reason", gpu.reason}, {"hello", gpu.hello}};
  return s;
}

GpuDescription remote_gpu_description(RedisJobQueue& queue, std::chrono::seconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    std::vector<json> workers;
    if (auto s = queue.workers(&workers); !s.ok) return {false, "none", s.error, nullptr};
    for (const auto& w : workers) {
      const json& g = w.value("gpu", json::object());
      if (g.value("gpu_stages", false)) return {true, g.value("name", "?"), "", g.value("hello", json(nullptr))};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string why = workers.empty()
                                  ? "no `ptxbench serve` worker has published its state on " + queue.endpoint().url()
                                  : "no published `ptxbench serve` worker runs GPU stages";
      return {false, "none", why, nullptr};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace ptxbench

// What a counted call reports: executed instructions by kernel and offset, and the tensor maps used.
#include "runner/counted_call.h"

#include <map>
#include <set>

#include "runner/integrity/gpu_activity_monitor.h"

namespace ptxbench {

std::vector<ExecutedInstruction> candidate_counts(std::vector<ExecutedInstruction> counts) {
  const auto* monitor = GpuActivityMonitor::instance();
  if (!monitor || !monitor->knows_candidate_functions()) return counts;  // nothing to tell them apart by: keep all
  std::vector<ExecutedInstruction> out;
  for (auto& c : counts)
    if (monitor->is_candidate_function(c.function)) out.push_back(std::move(c));
  return out;
}

std::vector<std::string> executed_kernels(const std::vector<ExecutedInstruction>& counts) {
  std::set<std::string> names;
  for (const auto& c : counts)
    if (c.executed > 0) names.insert(c.function);
  return {names.begin(), names.end()};
}

namespace {
std::map<uint32_t, std::string>& counted_cubin_names() {
  static std::map<uint32_t, std::string> names;
  return names;
}
}  // namespace

void name_counted_cubins(std::map<uint32_t, std::string> names) { counted_cubin_names() = std::move(names); }

json target_counts_json(const std::vector<ExecutedInstruction>& counts) {
  const auto& images = counted_cubin_names();
  // (kernel, image) -> pcs; image "" where the cubin has no name (a CUDA candidate's fatbin)
  std::map<std::pair<std::string, std::string>, json> by_function;
  uint64_t total = 0;
  for (const auto& c : counts) {
    total += c.executed;
    if (c.executed == 0) continue;
    const auto image = images.find(c.cubin_crc);
    auto [it, fresh] =
        by_function.try_emplace({c.function, image == images.end() ? std::string() : image->second}, json::array());
    it->second.push_back({c.pc_offset, c.executed});
  }
  json functions = json::array();
  json maps = json::object();
  const auto* monitor = GpuActivityMonitor::instance();
  for (auto& [key, pcs] : by_function) {
    const auto& [name, image] = key;
    if (monitor && !maps.contains(name))
      if (auto m = monitor->tensor_maps_of(name))
        maps[name] = {{"min_box_bytes", m->min_box_bytes}, {"maps", m->maps}, {"min_fill", m->min_fill}};
    json f = {{"function", name}, {"pcs", std::move(pcs)}};
    if (!image.empty()) f["image"] = image;
    functions.push_back(std::move(f));
  }
  return {{"patched_instructions", counts.size()},
          {"executed_instructions", total},
          {"functions", functions},
          {"tensor_maps", maps}};
}

}  // namespace ptxbench

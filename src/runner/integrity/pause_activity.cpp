// What a paused shared worker reports of GPU work that ended after its acknowledgement.
#include "runner/integrity/pause_activity.h"

#include <algorithm>
#include <unordered_map>

namespace ptxbench {
namespace {

std::string kind_name(DeviceWork::Kind k) {
  switch (k) {
    case DeviceWork::Kind::kernel: return "kernel";
    case DeviceWork::Kind::memcpy: return "memcpy";
    case DeviceWork::Kind::memset: return "memset";
  }
  return "work";
}

}  // namespace

PauseReport work_after_acknowledgement(const Observations& o, uint64_t acked_ns) {
  PauseReport r;
  r.activity_known = o.active;
  std::unordered_map<uint32_t, Actor> actor_of;
  for (const auto& l : o.launches) actor_of[l.correlation] = l.actor;
  std::vector<const DeviceWork*> after;
  for (const auto& w : o.work)
    if (std::max(w.end, w.start) > acked_ns) after.push_back(&w);
  std::sort(after.begin(), after.end(), [](const DeviceWork* a, const DeviceWork* b) { return a->start < b->start; });
  for (const DeviceWork* w : after) {
    if (r.work.size() == kPauseReportMaxSpans) {
      ++r.more;
      continue;
    }
    const auto a = actor_of.find(w->correlation);
    // Work no host call of this process announced (a launch the callbacks never saw) is named so.
    r.work.push_back({w->start, w->end, kind_name(w->kind),
                      a == actor_of.end() ? "unannounced" : std::string(to_string(a->second)), w->name});
  }
  return r;
}

}  // namespace ptxbench

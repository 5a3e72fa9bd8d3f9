// Whether a paused shared-lane worker kept the GPU busy during another worker's exclusive window.
#include "judge/pause_overlap.h"

#include <cstdio>

namespace ptxbench {
namespace {

std::string ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", double(ns) / 1e6);
  return b;
}

}  // namespace

std::vector<PauseOverlap> overlaps_with_window(const ExclusiveWindow& window, uint64_t acked_ns,
                                               const PauseReport& report) {
  std::vector<PauseOverlap> out;
  if (window.end_ns <= window.start_ns) return out;
  for (const auto& s : report.work) {
    const uint64_t end = s.end_ns > s.start_ns ? s.end_ns : s.start_ns + 1;  // a record without a length
    if (s.start_ns + kPauseClockSlackNs < window.end_ns && end > window.start_ns + kPauseClockSlackNs)
      out.push_back({s, end > acked_ns});
  }
  return out;
}

std::string describe_overlaps(const std::vector<PauseOverlap>& overlaps, const ExclusiveWindow& window,
                              uint64_t acked_ns) {
  if (overlaps.empty()) return "";
  const auto& s = overlaps.front().span;
  std::string what = s.kind + (s.name.empty() ? "" : " '" + s.name + "'") + " (" + s.actor + ")";
  std::string when = s.start_ns >= window.start_ns ? ms(s.start_ns - window.start_ns) + " into the exclusive window"
                                                   : "into the exclusive window from before it";
  if (s.start_ns >= acked_ns) when += ", " + ms(s.start_ns - acked_ns) + " after the worker acknowledged the pause";
  std::string text = what + " ran " + when;
  if (overlaps.size() > 1) text += " (and " + std::to_string(overlaps.size() - 1) + " more)";
  return text;
}

}  // namespace ptxbench

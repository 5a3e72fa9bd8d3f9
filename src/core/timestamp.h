// Wall-clock timestamps, ISO-8601 UTC: whole seconds for an evaluation record's created_at; with
// milliseconds for stored rows, so rows written within one second still sort in the order they happened.
// And the seconds elapsed since a point of the steady clock, for durations.
#pragma once
#include <chrono>
#include <string>

namespace ptxbench {

std::string utc_timestamp();     // "2026-11-29T12:00:00Z"
std::string utc_timestamp_ms();  // "2026-11-29T12:00:00.123Z"

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace ptxbench

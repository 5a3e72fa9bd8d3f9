// Wall-clock timestamps, ISO-8601 UTC: whole seconds for an evaluation record's created_at; with
// milliseconds for stored rows, so rows written within one second still sort in the order they happened.
// And the seconds elapsed since a point of the steady clock, for durations; the clock by which
// CUPTI stamps GPU activity records; and the host's monotonic clock, shared by its processes.
#pragma once
#include <time.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace ptxbench {

std::string utc_timestamp();     // "2026-11-29T12:00:00Z"
std::string utc_timestamp_ms();  // "2026-11-29T12:00:00.123Z"

// Nanoseconds of CLOCK_REALTIME: the clock CUPTI's activity records use on Linux by default
// (cupti_activity.h), so a window the harness stamps with it is held against a worker's records
// (the shared workers' pause, judge/pause_overlap.h).
inline uint64_t gpu_activity_clock_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

// Nanoseconds of CLOCK_MONOTONIC: one clock for every process on the host, so a worker's stamp
// (its "done") and the harness's (the worker's end) give the time between them.
inline uint64_t monotonic_clock_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace ptxbench

// The cooperative pause of a shared-lane worker, as both ends spell it (the harness:
// judge/shared_pause_link.h; the worker: runner/shared_pause.h; the simulated GPU stage of the
// service tests). A worker that runs only stages that need no GPU alone (checked calls, counted
// calls) is given a socket (`pause_fd` in its job). When a timed worker on its GPU asks for the GPU
// alone, the harness writes kAskToPause; the worker reads it at its next call boundary (between
// two candidate calls: the harness owns the loop, a candidate runs only inside calls), waits until
// the whole device is idle, and answers kPaused. It then waits for kResume, which the harness
// writes when the exclusive window ends, and answers with one line: an HMAC-SHA256 (the result
// channel's key, over kPauseReportPrefix and the JSON) and the JSON of its pause report
// (judge/pause_overlap.h: the pause's number, when it acknowledged and resumed, and the GPU work
// that ran after its acknowledgement, by CUPTI's clock: PauseReport below). The harness holds that
// work against the exclusive window: work in it discards the timing and makes the worker's
// candidate `forbidden`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

inline constexpr char kAskToPause = 'p';
inline constexpr char kPaused = 'a';
inline constexpr char kResume = 'c';
inline constexpr const char* kPauseReportPrefix = "pause-report ";
inline constexpr size_t kPauseReportMaxBytes = 64 * 1024;  // one line, its HMAC included
inline constexpr size_t kPauseReportMaxSpans = 64;         // the rest only counted ("more")

// One piece of GPU work as CUPTI recorded it in the paused worker.
struct ActivitySpan {
  uint64_t start_ns = 0, end_ns = 0;
  std::string kind;   // kernel, memcpy, memset
  std::string actor;  // who launched it (runner/integrity/observations.h: harness, candidate_call, ...)
  std::string name;   // the kernel's name; empty for copies and sets
};

// What the paused worker reports when it is resumed: the pause's number (from 1, per worker), when
// it acknowledged and when it was resumed (its clock), and every piece of work that ended after its
// acknowledgement (kPauseReportMaxSpans at most; `more` counts the rest). `activity_known`: its GPU
// activity was recorded at all (false: a worker without the activity monitor, whose pause can
// prove nothing).
struct PauseReport {
  int pause = 0;
  uint64_t acked_ns = 0, resumed_ns = 0;
  bool activity_known = false;
  std::vector<ActivitySpan> work;
  uint64_t more = 0;
  uint64_t dropped_records = 0;  // activity records CUPTI could not deliver while it was paused
};

json to_json(const PauseReport& r);
// Throws Error naming what is wrong (a missing or mistyped key).
PauseReport parse_pause_report(const json& j);

}  // namespace ptxbench

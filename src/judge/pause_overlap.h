// Whether a paused shared-lane worker kept the GPU busy during another worker's exclusive window
// (core/shared_pause.h). Pure: the worker's pause report (core/shared_pause.h) and the window, both by the
// clock of CUPTI's activity records (core/timestamp.h, gpu_activity_clock_ns).
//
// Any of its GPU work that overlaps the window discards the timing taken in it (the timed worker
// runs again). Work that ran after the harness received the worker's acknowledgement was the worker
// process's own doing: the honest worker waits for the whole device to be idle before it
// acknowledges and launches nothing until it is resumed, so only candidate code (a thread it left
// running, a launch outside any call) can have run it: the candidate is `forbidden`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/shared_pause.h"

namespace ptxbench {

// The exclusive window, [start_ns, end_ns): from the harness's grant to its release.
struct ExclusiveWindow {
  uint64_t start_ns = 0, end_ns = 0;
};

struct PauseOverlap {
  ActivitySpan span;
  bool caused_by_worker = false;  // ran after the harness had the worker's acknowledgement
};

// How far a span may reach into either edge of the window without counting: CUPTI converts the
// GPU's timestamps to the CPU clock, and an honest worker's last kernel before its acknowledgement
// (or first after its resume) lies just outside the window; a kernel inside it is caught whatever
// its length.
inline constexpr uint64_t kPauseClockSlackNs = 200'000;

// Every span of `report` that overlaps `window` by more than the slack at its edges. `acked_ns`: when the harness
// received the worker's acknowledgement (its own clock reading, not the worker's word).
std::vector<PauseOverlap> overlaps_with_window(const ExclusiveWindow& window, uint64_t acked_ns,
                                               const PauseReport& report);

// "kernel 'k' (candidate_call) ran 1.200 ms into the exclusive window, 3.4 ms after the worker
// acknowledged the pause" for the first overlap, and how many more.
std::string describe_overlaps(const std::vector<PauseOverlap>& overlaps, const ExclusiveWindow& window,
                              uint64_t acked_ns);

}  // namespace ptxbench

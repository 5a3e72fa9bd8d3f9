// What the library's timing beside a candidate and alone says (the timing stage's decision, pure,
// unit-tested in tests/unit/runner/test_baseline_drift.cpp; docs/anti-cheat.md, "The baseline is
// what it claims").
//
// The library is timed alone before the candidate loads, beside it, and (when the two disagree by
// more than kDriftReported) alone again at once after the candidate's timing:
//  - back to normal at once: the slowdown beside it was the candidate's doing. More than
//    kDriftForbidden slower beside it is `forbidden`; less is reported.
//  - still slower alone: the GPU may be hot. A candidate may heat it (its own time pays for that),
//    and must never be able to choose an infra error over its verdict, so the GPU is let cool
//    (bounded: cooled_down by NVML, at most kCoolDownMaxSeconds) and the library timed alone
//    again, up to kMaxCoolDowns times. Back to normal after a cool-down: `cooled`, the verdict
//    stands. Still slower after every cool-down: the fixed health kernel (runner/calibration_kernel.cuh,
//    the candidate's code takes no part in it) decides. More than kHealthTolerance slower than
//    before the load: the GPU itself is faulty, `infra_error`; else `still_off`, the verdict stands.
//  - faster alone after than before: the clean timing was slow (the GPU changed for the better);
//    the verdict stands.
// Whatever stands, the speedup's baseline is the fastest library timing (judge/stages/worker_events.cpp
// takes the faster of beside, before and after): never a slower one that would favour the candidate.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "probes/nvml_monitor.h"

namespace ptxbench {

constexpr double kDriftReported = 0.03;   // beside vs alone: reported (and the library re-timed alone) above
constexpr double kDriftForbidden = 0.10;  // beside slower than alone, the library back to normal at once
constexpr int kMaxCoolDowns = 3;
constexpr double kCoolDownMinSeconds = 2;   // every cool-down rests the GPU this long at least
constexpr double kCoolDownMaxSeconds = 30;  // and at most this long, cooled or not
// The health kernel this much slower than before the load: the GPU is faulty (the service's
// thermal screening uses the same figure for its calibration kernel: health/gpu_monitor.h).
constexpr double kHealthTolerance = 0.15;
// Cooled: no thermal, hardware or power slowdown reported, and no warmer than this many degrees
// above the temperature before the candidate loaded (where both are known).
constexpr unsigned kCooledWithinCelsius = 3;

// Whether NVML says the GPU has cooled down (see kCooledWithinCelsius). Without NVML: false (the
// cool-down then just rests the GPU for its longest).
bool cooled_down(const GpuState& now, const GpuState& before_candidate);

struct BaselineDrift {
  double before_ms = 0;  // the library alone before the candidate loaded
  double beside_ms = 0;  // beside the candidate (its interleaved median)
  // Alone after the candidate's timing: [0] at once, then one after each cool-down.
  std::vector<double> alone_after_ms;
  // The health kernel before the load and after the last cool-down; 0: not timed.
  double health_before_ms = 0, health_after_ms = 0;
};

enum class DriftOutcome { reported, forbidden, cooled, still_off, faster, infra_error };
std::string_view to_string(DriftOutcome o);

// Whether the library's latest timing alone asks for a cool-down and another timing: still slower
// than before by more than kDriftReported, never back to normal, fewer than kMaxCoolDowns so far.
bool needs_cool_down(const BaselineDrift& d);
// Whether the health kernel is to decide: still slower after the last cool-down there will be.
bool needs_health_check(const BaselineDrift& d);

struct DriftDecision {
  DriftOutcome outcome = DriftOutcome::reported;
  double drift = 0;             // beside vs before
  double fastest_after_ms = 0;  // the fastest of the timings alone after the candidate
  double after_drift = 0;       // that one vs before
  int cool_downs = 0;
  std::string report;   // the library's timings on the shape, in one line
  std::string message;  // why forbidden or infra_error; the note for cooled, still_off and faster
  bool keeps_verdict() const { return outcome != DriftOutcome::forbidden && outcome != DriftOutcome::infra_error; }
};
// `label` names the shape in the message.
DriftDecision decide_baseline_drift(const BaselineDrift& d, const std::string& label);

}  // namespace ptxbench

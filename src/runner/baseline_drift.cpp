// Decides whether the library's timing beside a candidate drifted from its timing alone.
#include "runner/baseline_drift.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ptxbench {
namespace {

double relative(double ms, double before) { return before > 0 ? ms / before - 1 : 0; }
bool back_to_normal(double ms, double before) { return std::fabs(relative(ms, before)) <= kDriftReported; }
bool ever_back(const BaselineDrift& d) {
  return std::any_of(d.alone_after_ms.begin(), d.alone_after_ms.end(),
                     [&](double ms) { return back_to_normal(ms, d.before_ms); });
}
bool slower_now(const BaselineDrift& d) {
  return !d.alone_after_ms.empty() && relative(d.alone_after_ms.back(), d.before_ms) > kDriftReported;
}

}  // namespace

bool cooled_down(const GpuState& now, const GpuState& before_candidate) {
  if (!now.available) return false;
  // Thermal and hardware slowdowns (GpuState::throttled) and the power limits: the GPU is idle
  // while it cools, so a power cap still reported means it has not settled.
  if (now.throttled) return false;
  for (const auto& r : now.reason_names)
    if (r == "sw_power_cap" || r == "hw_power_brake_slowdown") return false;
  if (before_candidate.available && before_candidate.temperature_c > 0 && now.temperature_c > 0 &&
      now.temperature_c > before_candidate.temperature_c + kCooledWithinCelsius)
    return false;
  return true;
}

std::string_view to_string(DriftOutcome o) {
  switch (o) {
    case DriftOutcome::reported: return "reported";
    case DriftOutcome::forbidden: return "forbidden";
    case DriftOutcome::cooled: return "cooled";
    case DriftOutcome::still_off: return "still_off";
    case DriftOutcome::faster: return "faster";
    case DriftOutcome::infra_error: return "infra_error";
  }
  return "reported";
}

bool needs_cool_down(const BaselineDrift& d) {
  const int cool_downs = int(d.alone_after_ms.size()) - 1;
  return d.before_ms > 0 && !d.alone_after_ms.empty() && cool_downs < kMaxCoolDowns && !ever_back(d) && slower_now(d);
}

bool needs_health_check(const BaselineDrift& d) {
  const int cool_downs = int(d.alone_after_ms.size()) - 1;
  return d.before_ms > 0 && cool_downs >= kMaxCoolDowns && !ever_back(d) && slower_now(d);
}

DriftDecision decide_baseline_drift(const BaselineDrift& d, const std::string& label) {
  DriftDecision r;
  r.drift = relative(d.beside_ms, d.before_ms);
  r.cool_downs = std::max(0, int(d.alone_after_ms.size()) - 1);
  if (d.alone_after_ms.empty() || d.before_ms <= 0) return r;  // nothing timed again: reported
  r.fastest_after_ms = *std::min_element(d.alone_after_ms.begin(), d.alone_after_ms.end());
  r.after_drift = relative(r.fastest_after_ms, d.before_ms);
  char line[400];
  std::snprintf(line, sizeof line,
                "on %s the library took %.4f ms alone before the candidate, %.4f ms beside it, %.4f ms alone at "
                "once after it",
                label.c_str(), d.before_ms, d.beside_ms, d.alone_after_ms.front());
  std::string text = line;
  if (r.cool_downs > 0) {
    std::snprintf(line, sizeof line, " and %.4f ms after %d cool-down%s", d.alone_after_ms.back(), r.cool_downs,
                  r.cool_downs == 1 ? "" : "s");
    text += line;
  }
  r.report = text;
  if (back_to_normal(d.alone_after_ms.front(), d.before_ms)) {
    // Back to normal the moment the candidate stopped: the slowdown beside it was its doing.
    if (r.drift > kDriftForbidden) {
      r.outcome = DriftOutcome::forbidden;
      r.message = "the library ran " + std::to_string(int(std::lround(r.drift * 100))) +
                  "% slower beside the candidate than alone: " + text;
    } else {
      r.outcome = DriftOutcome::reported, r.message = text;
    }
    return r;
  }
  if (ever_back(d)) {
    r.outcome = DriftOutcome::cooled;
    r.message =
        "thermal: the library was slower alone right after the candidate and back to normal once the GPU "
        "cooled (the verdict stands; the speedup is against the fastest library timing): " +
        text;
    return r;
  }
  if (!slower_now(d) && r.after_drift < -kDriftReported) {
    r.outcome = DriftOutcome::faster;
    r.message =
        "the library ran faster alone after the candidate than before it (the speedup is against the "
        "faster): " +
        text;
    return r;
  }
  const bool health_known = d.health_before_ms > 0 && d.health_after_ms > 0;
  if (health_known && relative(d.health_after_ms, d.health_before_ms) > kHealthTolerance) {
    std::snprintf(line, sizeof line,
                  "; the fixed health kernel took %.4f ms, %.0f%% slower than the %.4f ms before the candidate "
                  "loaded (limit %.0f%%)",
                  d.health_after_ms, relative(d.health_after_ms, d.health_before_ms) * 100, d.health_before_ms,
                  kHealthTolerance * 100);
    r.outcome = DriftOutcome::infra_error;
    r.message = "the GPU itself is slower than before the candidate, after every cool-down: " + text + line;
    return r;
  }
  if (health_known) {
    std::snprintf(line, sizeof line, "; the fixed health kernel took %.4f ms, %.4f ms before the candidate loaded",
                  d.health_after_ms, d.health_before_ms);
    text += line;
  }
  r.outcome = DriftOutcome::still_off;
  r.message = "thermal: the library was still slower alone after every cool-down, the GPU itself " +
              std::string(health_known ? "is not (the health kernel)" : "could not be checked") +
              " (the verdict stands; the speedup is against the fastest library timing): " + text;
  return r;
}

}  // namespace ptxbench

// When a shape's timed samples may stop, and the statistics they are judged by.
#include "runner/sampling_rule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ptxbench {

TimingConfig TimingConfig::from_json(const json& j) {
  TimingConfig c;
  c.warmup_calls = j.value("warmup_calls", c.warmup_calls);
  c.min_samples = j.value("min_samples", c.min_samples);
  c.max_samples = j.value("max_samples", c.max_samples);
  c.target_median_error = j.value("target_median_error", c.target_median_error);
  c.max_seconds = j.value("max_seconds", c.max_seconds);
  c.slow_min_samples = j.value("slow_min_samples", c.slow_min_samples);
  c.slow_candidate_seconds = j.value("slow_candidate_seconds", c.slow_candidate_seconds);
  c.with_baseline = j.value("with_baseline", c.with_baseline);
  c.clean_min_samples = j.value("clean_min_samples", c.clean_min_samples);
  c.clean_max_seconds = j.value("clean_max_seconds", c.clean_max_seconds);
  if (const auto it = j.find("library_ahead"); it != j.end()) {  // true/false, or a number (0: off)
    if (!it->is_boolean() && !it->is_number())
      throw std::runtime_error("timing config: library_ahead is " + it->dump() + ", not true/false or 0/1");
    c.library_ahead = it->is_boolean() ? it->get<bool>() : it->get<double>() != 0;
  }
  return c;
}

SampleStats summarize(std::vector<double> v) {
  SampleStats s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    double pos = p * (v.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
  };
  s.median = q(0.5), s.p10 = q(0.1), s.p90 = q(0.9), s.min = v.front();
  s.spread = s.median > 0 ? (s.p90 - s.p10) / s.median : 0;
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - s.median));
  std::sort(dev.begin(), dev.end());
  const double mad = dev[dev.size() / 2];
  // Normal-equivalent sigma = 1.4826 MAD; the median's standard error is 1.2533 sigma / sqrt(n).
  s.median_error = s.median > 0 ? 1.2533 * 1.4826 * mad / std::sqrt(double(s.n)) / s.median : 0;
  return s;
}

std::string sampling_stop(const SamplingProgress& p, const TimingConfig& cfg) {
  const SampleStats& c = p.candidate;
  const bool counted_pending = p.counted_sample >= 0 && p.candidate_calls <= p.counted_sample;
  if (!counted_pending && c.n >= cfg.max_samples) return "max_samples";
  if (p.slots + 2 > p.capacity) return "capacity";
  if (counted_pending) {
    // Without this, a slow kernel stopped by the time limit before its counted sample was reached
    // would go uncounted while timed; the bound keeps a pathological one from holding the GPU.
    if (p.elapsed_seconds >= 4 * cfg.max_seconds && c.n >= 5) return "max_seconds (the counted sample not reached)";
    return "";
  }
  const bool stable = c.median_error <= cfg.target_median_error &&
                      (!p.with_baseline || p.baseline.median_error <= cfg.target_median_error);
  const bool enough =
      c.n >= cfg.min_samples || (c.n >= cfg.slow_min_samples && p.candidate_seconds >= cfg.slow_candidate_seconds);
  if (stable && enough) return "stable";
  if (p.elapsed_seconds >= cfg.max_seconds && c.n >= 5) return "max_seconds";
  return "";
}

json sampling_rule_json(const TimingConfig& cfg) {
  return {{"min_samples", cfg.min_samples},
          {"slow_min_samples", cfg.slow_min_samples},
          {"slow_candidate_seconds", cfg.slow_candidate_seconds},
          {"target_median_error", cfg.target_median_error},
          {"max_samples", cfg.max_samples},
          {"max_seconds", cfg.max_seconds}};
}

}  // namespace ptxbench

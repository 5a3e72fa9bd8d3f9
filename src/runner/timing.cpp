#include "runner/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "runner/device_ops.h"
#include "runner/hardware_peak.h"

namespace ptxbench {

TimingConfig TimingConfig::from_json(const json& j) {
  TimingConfig c;
  c.warmup_calls = j.value("warmup_calls", c.warmup_calls);
  c.min_samples = j.value("min_samples", c.min_samples);
  c.max_samples = j.value("max_samples", c.max_samples);
  c.target_median_error = j.value("target_median_error", c.target_median_error);
  c.max_seconds = j.value("max_seconds", c.max_seconds);
  c.with_baseline = j.value("with_baseline", c.with_baseline);
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

namespace {

enum class Side { candidate, baseline };

struct Sampler {
  WorkerContext& ctx;
  L2Flusher flusher;
  std::vector<CudaEvent> starts, ends;
  std::vector<Side> sides;
  uint64_t seed;
  int slots = 0;

  Sampler(WorkerContext& c, uint64_t s, int capacity) : ctx(c), starts(capacity), ends(capacity), seed(s) {
    ctx.workload.reset_timed_checks(capacity);
  }

  // One sample: fresh inputs, arm the check, poison, cold L2, timed call, verify.
  void sample(Side side) {
    auto s = ctx.stream.get();
    const uint64_t sample_seed = seed + 0x1000 + static_cast<uint64_t>(slots) * 7919;
    ctx.workload.generate_timing_inputs(sample_seed, s);
    ctx.workload.arm_timed_check(sample_seed ^ 0xabcdef, s);
    ctx.workload.poison_outputs(s);
    flusher.flush(s);
    PTXBENCH_CUDA(cudaEventRecord(starts[slots].get(), s));
    cudaError_t ret = cudaSuccess;
    if (side == Side::candidate) ret = ctx.workload.call_candidate(ctx.entry, s);
    else ctx.workload.call_baseline(s);
    PTXBENCH_CUDA(cudaEventRecord(ends[slots].get(), s));
    if (ret != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error", std::string("timed call: the candidate returned ") + cudaGetErrorName(ret), 4);
    ctx.workload.verify_timed_check(slots, s);
    sides.push_back(side);
    ++slots;
  }
};

}  // namespace

json time_shape(WorkerContext& ctx, const json& shape, double flops, uint64_t seed, const TimingConfig& cfg) {
  const std::string label = shape_label(shape);
  auto s = ctx.stream.get();
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(seed, s);
  {
    // Warm-up: module load, first-call set-up and the baseline's plan stay out of the samples.
    WatchdogScope guard(ctx.watchdog, "warm-up calls on " + label, call_time_limit(flops) * (cfg.warmup_calls + 1));
    for (int i = 0; i < cfg.warmup_calls; ++i) {
      if (cudaError_t e = ctx.workload.call_candidate(ctx.entry, s); e != cudaSuccess)
        ctx.channel.fatal_and_exit("runtime_error", "warm-up on " + label + ": the candidate returned " + cudaGetErrorName(e), 4);
      if (cfg.with_baseline) ctx.workload.call_baseline(s);
    }
    if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error", "warm-up on " + label + ": " + cudaGetErrorName(e), 4);
  }
  const GpuState before = ctx.nvml.read();
  const auto t0 = std::chrono::steady_clock::now();
  const int capacity = cfg.max_samples * (cfg.with_baseline ? 2 : 1);
  Sampler sm(ctx, seed, capacity);
  std::vector<double> cand_ms, base_ms;
  bool throttled = before.throttled;
  json clocks = json::array();
  int synced = 0;
  for (int round = 0;; ++round) {
    // Alternate which side goes first so neither always follows the other.
    const int batch = 8;
    for (int i = 0; i < batch && sm.slots + 2 <= capacity; ++i) {
      bool cand_first = ((round * batch + i) % 2) == 0;
      if (cand_first || !cfg.with_baseline) sm.sample(Side::candidate);
      if (cfg.with_baseline) sm.sample(Side::baseline);
      if (!cand_first && cfg.with_baseline) sm.sample(Side::candidate);
    }
    {
      WatchdogScope guard(ctx.watchdog, "timed calls on " + label, call_time_limit(flops) * batch * 2 + 10);
      if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess)
        ctx.channel.fatal_and_exit("runtime_error", "timed calls on " + label + ": " + cudaGetErrorName(e), 4);
    }
    for (; synced < sm.slots; ++synced) {
      float ms = 0;
      PTXBENCH_CUDA(cudaEventElapsedTime(&ms, sm.starts[synced].get(), sm.ends[synced].get()));
      (sm.sides[synced] == Side::candidate ? cand_ms : base_ms).push_back(ms);
    }
    GpuState now = ctx.nvml.read();
    throttled = throttled || now.throttled;
    if (clocks.size() < 8) clocks.push_back(now.sm_clock_mhz);
    auto c = summarize(cand_ms), b = summarize(base_ms);
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bool stable = c.median_error <= cfg.target_median_error &&
                  (!cfg.with_baseline || b.median_error <= cfg.target_median_error);
    if ((c.n >= cfg.min_samples && stable) || c.n >= cfg.max_samples || sm.slots + 2 > capacity ||
        (elapsed >= cfg.max_seconds && c.n >= 5))
      break;
  }
  const GpuState after = ctx.nvml.read();

  // Every timed output, candidate and baseline alike, must pass the cheap check.
  auto checks = ctx.workload.timed_check_results(sm.slots);
  json failures = json::array();
  for (int i = 0; i < sm.slots; ++i) {
    if (checks[i].ok()) continue;
    std::string why = !checks[i].output_finite ? "output holds NaN/Inf (not written in the timed call?)"
                      : !checks[i].inputs_unchanged ? "the inputs changed during the timed call"
                                                    : "output does not match the inputs (randomized projection check)";
    failures.push_back({{"sample", i}, {"side", sm.sides[i] == Side::candidate ? "candidate" : "baseline"},
                        {"why", why}, {"worst_ratio", checks[i].worst_ratio}});
  }

  auto c = summarize(cand_ms), b = summarize(base_ms);
  const double per_clock = flops_per_clock_per_sm(ctx.cc_major, ctx.cc_minor, ctx.workload.math_class());
  const double max_mhz = after.max_sm_clock_mhz ? after.max_sm_clock_mhz : 2100;  // generous when NVML is absent
  const double peak = per_clock * ctx.sm_count * max_mhz * 1e6;
  const double floor_ms = peak > 0 ? flops / peak * 1e3 : 0;
  json out = {{"shape", shape},
              {"flops", flops},
              {"candidate", {{"median_ms", c.median}, {"p10_ms", c.p10}, {"p90_ms", c.p90}, {"min_ms", c.min},
                             {"spread", c.spread}, {"median_error", c.median_error}, {"samples", c.n},
                             {"total_ms", std::accumulate(cand_ms.begin(), cand_ms.end(), 0.0)}}},
              {"wall_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
              {"floor_ms", floor_ms},
              {"below_floor", floor_ms > 0 && c.median < floor_ms},
              {"timed_check_failures", failures},
              {"throttled", throttled},
              {"gpu_before", before.to_json()},
              {"gpu_after", after.to_json()},
              {"sm_clock_mhz_during", clocks}};
  if (cfg.with_baseline) {
    out["baseline"] = {{"median_ms", b.median}, {"p10_ms", b.p10}, {"p90_ms", b.p90}, {"min_ms", b.min},
                       {"spread", b.spread}, {"median_error", b.median_error}, {"samples", b.n},
                       {"total_ms", std::accumulate(base_ms.begin(), base_ms.end(), 0.0)}};
    out["speedup"] = c.median > 0 ? b.median / c.median : 0.0;
  }
  return out;
}

}  // namespace ptxbench

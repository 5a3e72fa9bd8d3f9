// Times one shape: candidate and baseline interleaved, fresh inputs and cold L2, every output checked.
#include "runner/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "core/timestamp.h"
#include "runner/counted_call.h"
#include "runner/device_ops.h"
#include "runner/hardware_peak.h"
#include "runner/integrity/gpu_activity_monitor.h"
#include "runner/shared_pause.h"
#include "runner/timed_work.h"

namespace ptxbench {
namespace {

enum class Side { candidate, baseline };

struct Sampler {
  WorkerContext& ctx;
  const std::string label;
  const double flops;
  L2Flusher flusher;
  // Per sample, alternating (a sample's harness work after its call is read once the next
  // sample's call has ended): before the harness's work, the timed call's two ends, the inputs
  // generated again, the host's return from waiting for the call, after the harness's work.
  CudaEvent before[2], start[2], end[2], regenerated[2], resumed[2], after[2];
  std::vector<double> ms;
  std::vector<double> harness_before_ms, harness_after_ms;  // GPU time of the harness's own work around each call
  // The GPU idle per sample, waiting for the host: from the regenerated inputs to the check (the
  // host waking from its wait for the call), and from one sample's last work to the next one's first.
  std::vector<double> host_gap_ms;
  std::vector<Side> sides;
  int slots = 0;
  const int capacity;

  Sampler(WorkerContext& c, std::string l, double f, int cap) : ctx(c), label(std::move(l)), flops(f), capacity(cap) {
    ctx.workload.reset_timed_checks(capacity);
    ctx.guard.reserve(capacity, ctx.workload.inputs().size());
  }

  // One sample: fresh inputs, poison, cold L2, the timed call alone between two events; then,
  // once it has completed, the inputs generated again and the output checked with a secret drawn
  // only now.
  //
  // A counted sample looks like every other to the candidate (docs/anti-cheat.md, "What a
  // candidate can observe about a call"): counting is switched on BEFORE the harness enqueues the
  // sample's inputs, poison and L2 flush, so the call finds the stream busy with them as always
  // (a synchronization right before the call left it idle only then). What stays visible: the first
  // launch of each kernel inside the counted call is patched then, so it takes longer on the host.
  void sample(Side side, bool counted = false) {
    const auto started = std::chrono::steady_clock::now();
    auto s = ctx.stream.get();
    const int e = slots % 2;
    auto* monitor = GpuActivityMonitor::instance();
    if (counted) {
      PTXBENCH_CUDA(cudaStreamSynchronize(s));  // the previous sample's check, before the counter starts
      if (monitor) monitor->pause_kernel_records();
      ctx.counter->begin();
    }
    PTXBENCH_CUDA(cudaEventRecord(before[e].get(), s));
    const uint64_t seed = ctx.draw_seed();
    ctx.workload.generate_timing_inputs(seed, s);
    ctx.guard.before_call(ctx.workload, slots, s);
    ctx.workload.poison_outputs(s);
    flusher.flush(s);
    cudaError_t ret = cudaSuccess;
    PTXBENCH_CUDA(cudaEventRecord(start[e].get(), s));
    {
      const auto actor = side == Side::candidate ? Actor::candidate_call : Actor::baseline;
      CallScope call(actor, "timing", label, counted);
      if (side == Side::candidate) ret = ctx.workload.call_candidate(ctx.entry, s);
      else ctx.workload.call_baseline(s);
    }
    PTXBENCH_CUDA(cudaEventRecord(end[e].get(), s));
    if (ret != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error",
                                 std::string("timed call: the candidate returned ") + cudaGetErrorName(ret), 4);
    // The inputs as the call left them, generated again and fingerprinted: queued behind the call
    // before the host waits for it, so the GPU goes on to them at once (nothing secret: the check's
    // secret is drawn only once the call has completed). A counted sample's counters are read first.
    if (!counted) {
      regenerate_inputs(ctx, seed, true, slots);
      PTXBENCH_CUDA(cudaEventRecord(regenerated[e].get(), s));
    }
    {
      WatchdogScope guard(ctx.watchdog, "timed call on " + label, (call_time_limit(flops) + 10) * (counted ? 30 : 1));
      if (cudaError_t err = cudaEventSynchronize(end[e].get()); err != cudaSuccess)
        ctx.channel.fatal_and_exit("runtime_error", "timed call on " + label + ": " + cudaGetErrorName(err), 4);
    }
    const double elapsed = elapsed_ms(start[e], end[e]);
    harness_before_ms.push_back(elapsed_ms(before[e], start[e]));
    if (slots > 0) {
      harness_after_ms.push_back(elapsed_ms(end[1 - e], after[1 - e]));
      host_gap_ms.push_back(elapsed_ms(regenerated[1 - e], resumed[1 - e]) + elapsed_ms(after[1 - e], before[e]));
    }
    if (counted) {
      counts = candidate_counts(ctx.counter->end());
      if (monitor) {
        monitor->resume_kernel_records();
        monitor->record_counted_kernels(monitor->last_call(), executed_kernels(counts));
      }
    }
    if (counted) {
      counted_seconds = seconds_since(started);
      regenerate_inputs(ctx, seed, true, slots);
      PTXBENCH_CUDA(cudaEventRecord(regenerated[e].get(), s));
    }
    PTXBENCH_CUDA(cudaEventRecord(resumed[e].get(), s));
    ctx.workload.check_timed_call(slots, ctx.draw_seed(), s);
    PTXBENCH_CUDA(cudaEventRecord(after[e].get(), s));
    // The counted sample ran instrumented code: checked like every other, but not a time.
    ms.push_back(counted ? -1.0 : elapsed);
    sides.push_back(side);
    ++slots;
  }

  // The harness's GPU time around the calls (the last sample's after part once it completed): what a
  // sample costs besides the timed call, most of a fast kernel's sample.
  json harness_json() {
    if (slots > 0) {
      const int last = (slots - 1) % 2;
      PTXBENCH_CUDA(cudaEventSynchronize(after[last].get()));
      harness_after_ms.push_back(elapsed_ms(end[last], after[last]));
      host_gap_ms.push_back(elapsed_ms(regenerated[last], resumed[last]));
    }
    return {{"before_call_median_ms", summarize(harness_before_ms).median},
            {"after_call_median_ms", summarize(harness_after_ms).median},
            {"before_call_total_ms", std::accumulate(harness_before_ms.begin(), harness_before_ms.end(), 0.0)},
            {"after_call_total_ms", std::accumulate(harness_after_ms.begin(), harness_after_ms.end(), 0.0)},
            {"host_gap_median_ms", summarize(host_gap_ms).median},
            {"host_gap_total_ms", std::accumulate(host_gap_ms.begin(), host_gap_ms.end(), 0.0)}};
  }

  static double elapsed_ms(const CudaEvent& from, const CudaEvent& to) {
    float ms = 0;
    PTXBENCH_CUDA(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
  }

  std::vector<ExecutedInstruction> counts;  // of the counted sample
  double counted_seconds = 0;               // its wall time, instrumented

  std::vector<double> of(Side side) const {
    std::vector<double> out;
    for (size_t i = 0; i < ms.size(); ++i)
      if (sides[i] == side && ms[i] >= 0) out.push_back(ms[i]);
    return out;
  }
};

// A round of warm-up calls this long has done all a warm-up does (code loaded, first-call set-up,
// clocks up): the rest are skipped. Slow kernels (naive ones take 20-200 ms a call) otherwise spent
// seconds of exclusive GPU time on warm-up calls of every shape after the first.
constexpr double kEnoughWarmUpSeconds = 0.1;

void warm_up(WorkerContext& ctx, const std::string& label, double flops, int calls, bool candidate, bool baseline) {
  auto s = ctx.stream.get();
  // Warm-up: module load, first-call set-up and the baseline's plan stay out of the samples.
  WatchdogScope guard(ctx.watchdog, "warm-up calls on " + label, call_time_limit(flops) * (calls + 1));
  auto synchronize = [&] {
    if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error", "warm-up on " + label + ": " + cudaGetErrorName(e), 4);
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    if (i > 0) {
      synchronize();
      if (seconds_since(t0) >= kEnoughWarmUpSeconds) break;
    }
    if (candidate) {
      CallScope call(Actor::candidate_call, "warm-up", label);
      if (cudaError_t e = ctx.workload.call_candidate(ctx.entry, s); e != cudaSuccess)
        ctx.channel.fatal_and_exit("runtime_error",
                                   "warm-up on " + label + ": the candidate returned " + cudaGetErrorName(e), 4);
    }
    if (baseline) {
      CallScope call(Actor::baseline, "warm-up", label);
      ctx.workload.call_baseline(s);
    }
  }
  synchronize();
}

// Two library samples taken the way timed samples are (inputs, poison, L2 flush, call, regenerated
// inputs, timed check, input guard), their timings and checks discarded.
void discarded_library_samples(WorkerContext& ctx, const std::string& label, double flops) {
  Sampler sm(ctx, label, flops, 2);
  sm.sample(Side::baseline);
  sm.sample(Side::baseline);
  (void)ctx.workload.timed_check_results(sm.slots);
  (void)ctx.guard.changed(ctx.workload, sm.slots);
}

// The timed samples' inputs made once before the GPU is held alone: a workload that derives them
// with a library (the backward's O and LSE from cuDNN's forward) builds that library's plan for the
// shape here, not inside the first sample of an exclusive window (on the H100 bench, 0.2-1.3 s per
// backward shape of the library's clean timing was that plan).
void prepare_timing_inputs(WorkerContext& ctx) {
  ctx.workload.generate_timing_inputs(ctx.draw_seed(), ctx.stream.get());
  PTXBENCH_CUDA(cudaStreamSynchronize(ctx.stream.get()));
}

json stats_json(const SampleStats& c, const std::vector<double>& v) {
  return {{"median_ms", c.median}, {"p10_ms", c.p10},
          {"p90_ms", c.p90},       {"min_ms", c.min},
          {"spread", c.spread},    {"median_error", c.median_error},
          {"samples", c.n},        {"total_ms", std::accumulate(v.begin(), v.end(), 0.0)}};
}

}  // namespace

void warm_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg) {
  // The harness's own section: its libraries' plans, the counters' sessions (HarnessStreamScope).
  HarnessStreamScope own;
  const std::string label = shape_label(shape);
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(ctx.draw_seed(), ctx.stream.get());
  warm_up(ctx, label, flops, std::max(cfg.warmup_calls, 1), false, true);
  // Two samples taken the way time_baseline_alone takes them, and discarded: every path of the
  // harness a timed sample uses (timing inputs, poison, the L2 flush, the events, the regenerated
  // inputs, the timed check, NVML's clocks) runs once before the candidate loads, as it does when
  // the library is timed alone (seen on the H200: with only the library's warm-up calls, a cached
  // mha_bwd shape met a file creation after the load and the reference was judged forbidden).
  discarded_library_samples(ctx, label, flops);
  (void)ctx.nvml.read();
}

namespace {

// The library alone set up on `shape`: its buffers and inputs, `warmup_calls` calls, the timed
// samples' inputs (what precedes the GPU taken alone for its samples).
void set_up_library_alone(WorkerContext& ctx, const json& shape, const std::string& label, double flops,
                          int warmup_calls) {
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(ctx.draw_seed(), ctx.stream.get());
  warm_up(ctx, label, flops, warmup_calls, false, true);
  prepare_timing_inputs(ctx);
}

}  // namespace

void library_ahead(WorkerContext& ctx, const json& shape, double flops) {
  // The harness's own section: its libraries' plans, the counters' sessions (HarnessStreamScope).
  HarnessStreamScope own;
  set_up_library_alone(ctx, shape, shape_label(shape), flops, 1);
}

CleanBaseline time_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg,
                                  int lead_samples) {
  // The harness's own section: its libraries' plans, the counters' sessions (HarnessStreamScope).
  HarnessStreamScope own;
  const std::string label = shape_label(shape);
  set_up_library_alone(ctx, shape, label, flops, cfg.warmup_calls);
  ctx.take_exclusive_gpu();  // the first timed sample follows
  const int capacity = std::max(cfg.clean_min_samples, 5) * 4;
  Sampler sm(ctx, label, flops, capacity);
  const auto t0 = std::chrono::steady_clock::now();
  double mhz = 0;
  while (sm.slots < capacity) {
    sm.sample(Side::baseline);
    if (sm.slots % 8 == 0) mhz = std::max(mhz, double(ctx.nvml.read().sm_clock_mhz));
    const auto st = summarize(sm.ms);
    const double elapsed = seconds_since(t0);
    if ((st.n >= cfg.clean_min_samples && st.median_error <= cfg.target_median_error) ||
        (elapsed >= cfg.clean_max_seconds && st.n >= 5))
      break;
  }
  const auto st = summarize(sm.ms);
  CleanBaseline b{st.median, st.median_error, st.n, mhz, seconds_since(t0)};
  if (lead_samples > 0 && int(sm.ms.size()) >= lead_samples) {
    b.lead_median_ms = summarize(std::vector<double>(sm.ms.begin(), sm.ms.begin() + lead_samples)).median;
    b.lead_samples = lead_samples;
  }
  return b;
}

double time_health_kernel(WorkerContext& ctx) {
  HarnessStreamScope own;
  PTXBENCH_CUDA(cudaStreamSynchronize(ctx.stream.get()));
  CallScope call(Actor::baseline, "health check", "");
  return health_kernel_ms(ctx.sm_count, ctx.stream.get());
}

CleanBaseline check_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg,
                                   int samples) {
  // The harness's own section: its libraries' plans, the counters' sessions (HarnessStreamScope).
  HarnessStreamScope own;
  const std::string label = shape_label(shape);
  set_up_library_alone(ctx, shape, label, flops, cfg.warmup_calls);
  ctx.take_exclusive_gpu();  // the first timed sample follows
  const int n = std::max(samples, 1);
  Sampler sm(ctx, label, flops, n);
  const auto t0 = std::chrono::steady_clock::now();
  double mhz = 0;
  while (sm.slots < n) sm.sample(Side::baseline);
  const auto st = summarize(sm.ms);
  const double seconds = seconds_since(t0);
  // As warm_baseline_alone: every path a timed sample takes runs before the candidate loads, the
  // timed check and the input guard's comparison included (the check may be all this shape gets).
  (void)ctx.workload.timed_check_results(sm.slots);
  (void)ctx.guard.changed(ctx.workload, sm.slots);
  mhz = double(ctx.nvml.read().sm_clock_mhz);
  return {st.median, st.median_error, st.n, mhz, seconds};
}

json time_shape(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg, bool count_timed) {
  // The harness's own section: its libraries' plans, the counters' sessions (HarnessStreamScope).
  HarnessStreamScope own;
  const std::string label = shape_label(shape);
  auto s = ctx.stream.get();
  const auto set_up_from = std::chrono::steady_clock::now();
  // Held since the clean timings (not given back): the candidate's load and what came before this
  // first shape, in the exclusive window.
  std::optional<double> alone_since_clean_timings;
  if (ctx.clean_timings_ended) {
    alone_since_clean_timings = ctx.seconds_alone_since(*ctx.clean_timings_ended);
    ctx.clean_timings_ended.reset();
  }
  // A timed worker still starting (its first shape, before its request for the GPU alone) may pause
  // for another's window at these boundaries: between the harness's steps, before its warm-up calls.
  pause_point(ctx);
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(ctx.draw_seed(), s);
  pause_point(ctx);
  warm_up(ctx, label, flops, cfg.warmup_calls, true, cfg.with_baseline);
  pause_point(ctx);
  prepare_timing_inputs(ctx);
  // The shape's buffers, inputs and warm-up calls: under exclusive use for every shape but the first
  // (and for the first too when the clean timings kept the GPU alone).
  const double set_up_seconds = seconds_since(set_up_from);
  const double set_up_alone_seconds = ctx.seconds_alone_since(set_up_from);
  ctx.take_exclusive_gpu();  // the first timed sample follows (a no-op once taken)
  const GpuState before = ctx.nvml.read();
  const auto t0 = std::chrono::steady_clock::now();
  // The target work of every timed sample, from the hardware counters with nothing patched
  // (runner/timed_work.h): the library's calls and two whole library samples are counted first,
  // with their own sampler, discarded as warm_baseline_alone's are. Where the counters cannot run,
  // one candidate sample, drawn in secret among those that always run, has its instructions
  // counted instead (patched: its launches are slower).
  TimedWork work(count_timed ? ctx.work_counters.get() : nullptr);
  if (cfg.with_baseline) {
    work.open(
        2,
        [&] {
          CallScope call(Actor::baseline, "warm-up", label);
          ctx.workload.call_baseline(s);
        },
        [&] { discarded_library_samples(ctx, label, flops); }, s);
  } else {
    work.open(0, {}, {}, s);
  }
  const int capacity = cfg.max_samples * (cfg.with_baseline ? 2 : 1);
  Sampler sm(ctx, label, flops, capacity);
  bool throttled = before.throttled;
  json clocks = json::array();
  const int counted_sample = ctx.counter && count_timed && !ctx.work_counters
                                 ? int(ctx.draw_seed() % uint64_t(std::max(cfg.min_samples, 1)))
                                 : -1;
  int candidate_samples = 0;
  std::string stopped;  // sampling_stop's reason
  auto candidate_sample = [&] { sm.sample(Side::candidate, candidate_samples++ == counted_sample); };
  for (int round = 0;; ++round) {
    // Alternate which side goes first so neither always follows the other.
    const int batch = 8;
    for (int i = 0; i < batch && sm.slots + 2 <= capacity; ++i) {
      bool cand_first = ((round * batch + i) % 2) == 0;
      if (cand_first || !cfg.with_baseline) candidate_sample();
      if (cfg.with_baseline) sm.sample(Side::baseline);
      if (!cand_first && cfg.with_baseline) candidate_sample();
    }
    GpuState now = ctx.nvml.read();
    throttled = throttled || now.throttled;
    if (clocks.size() < 8) clocks.push_back(now.sm_clock_mhz);
    SamplingProgress p;
    const auto cand = sm.of(Side::candidate);
    p.candidate = summarize(cand), p.baseline = summarize(sm.of(Side::baseline));
    p.candidate_seconds = std::accumulate(cand.begin(), cand.end(), 0.0) / 1e3;
    p.elapsed_seconds = seconds_since(t0);
    p.slots = sm.slots, p.capacity = capacity, p.candidate_calls = candidate_samples;
    p.counted_sample = counted_sample, p.with_baseline = cfg.with_baseline;
    stopped = sampling_stop(p, cfg);
    if (!stopped.empty()) break;
  }
  work.close(candidate_samples, int(std::count(sm.sides.begin(), sm.sides.end(), Side::baseline)), s);
  const GpuState after = ctx.nvml.read();

  // Every timed output, candidate and baseline alike, must pass the check.
  auto checks = ctx.workload.timed_check_results(sm.slots);
  const auto changed = ctx.guard.changed(ctx.workload, sm.slots);
  json failures = json::array();
  for (int i = 0; i < sm.slots; ++i) {
    checks[i].inputs_unchanged = changed[i].empty();
    if (checks[i].ok()) continue;
    std::string why = !checks[i].output_finite      ? "output holds NaN/Inf (not written in the timed call?)"
                      : !checks[i].inputs_unchanged ? "the timed call changed its input " + changed[i]
                                                    : "output does not match the inputs (randomized projection check)";
    failures.push_back({{"sample", i},
                        {"side", sm.sides[i] == Side::candidate ? "candidate" : "baseline"},
                        {"why", why},
                        {"worst_ratio", checks[i].worst_ratio}});
  }

  const auto cand_ms = sm.of(Side::candidate), base_ms = sm.of(Side::baseline);
  auto c = summarize(cand_ms), b = summarize(base_ms);
  const double per_clock = flops_per_clock_per_sm(ctx.cc_major, ctx.cc_minor, ctx.workload.math_class());
  const double max_mhz = after.max_sm_clock_mhz ? after.max_sm_clock_mhz : 2100;  // generous when NVML is absent
  const double peak = per_clock * ctx.sm_count * max_mhz * 1e6;
  const double floor_ms = peak > 0 ? flops / peak * 1e3 : 0;
  json out = {{"shape", shape},
              {"flops", flops},
              {"candidate", stats_json(c, cand_ms)},
              {"wall_seconds", seconds_since(t0)},
              {"harness_gpu_ms", sm.harness_json()},
              {"set_up_seconds", set_up_seconds},
              {"set_up_alone_seconds", set_up_alone_seconds},
              {"stopped", stopped},
              {"floor_ms", floor_ms},
              {"below_floor", floor_ms > 0 && c.median < floor_ms},
              {"timed_check_failures", failures},
              {"throttled", throttled},
              {"gpu_before", before.to_json()},
              {"gpu_after", after.to_json()},
              {"sm_clock_mhz_during", clocks}};
  if (cfg.with_baseline) {
    out["baseline"] = stats_json(b, base_ms);
    out["speedup"] = c.median > 0 ? b.median / c.median : 0.0;
  }
  if (alone_since_clean_timings) out["alone_since_clean_timings_seconds"] = *alone_since_clean_timings;
  if (!work.result().is_null()) {
    out["timed_work"] = work.result();
    // The TMA's counter counts whole boxes, zero-filled parts too: the judge credits the timed
    // calls' TMA bytes at the smallest fill of the maps the candidate's kernels were given.
    if (auto* monitor = GpuActivityMonitor::instance()) out["timed_work"]["tma_box_fill"] = monitor->tma_box_fill();
  }
  if (counted_sample >= 0 && counted_sample < candidate_samples) {
    out["counted_sample"] = counted_sample;
    out["counted_instructions"] = target_counts_json(sm.counts);
    out["counted_sample_seconds"] = sm.counted_seconds;
  }
  return out;
}

}  // namespace ptxbench

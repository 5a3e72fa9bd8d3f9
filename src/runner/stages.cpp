#include "runner/stages.h"

#include <chrono>

#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <set>

#include "core/timestamp.h"
#include "probes/ncu_probe.h"
#include "runner/counted_call.h"
#include "runner/device_ops.h"
#include "runner/library_timing_check.h"
#include "runner/reference_client.h"
#include "runner/integrity/gpu_activity_monitor.h"
#include "runner/timing.h"

namespace ptxbench {
namespace {

// Baseline drift beside the candidate against the baseline alone: reported above the first,
// forbidden above the second when the baseline alone is back to normal afterwards.
constexpr double kDriftReported = 0.03, kDriftForbidden = 0.10;

// Where a checked call's time went: the harness's inputs and poison, the candidate's call, and
// the harness's regenerated inputs, reference (computed, or written back from the service's pool)
// and full check.
struct CheckedCallSeconds {
  double inputs = 0, call = 0, reference_and_check = 0;
  double reference = -1;  // a pooled reference's hand-over alone; a computed one runs on the stream with the check
  json to_json() const {
    json j = {{"inputs", inputs}, {"call", call}, {"reference_and_check", reference_and_check}};
    if (reference >= 0) j["pooled_reference"] = reference;
    return j;
  }
};

// One checked call: fresh inputs, poison, the call, inputs generated again, reference, full check.
// `pooled` (shape, seed): the inputs of a set in the service's reference pool, whose reference is
// asked for only now that the call returned; otherwise a fresh seed, and the reference computed here.
CheckOutcome checked_call(WorkerContext& ctx, const json& tol, const std::string& what, double flops,
                          const std::string& stage, const std::string& label, bool counted,
                          std::vector<integrity::ExecutedInstruction>* counts, CheckedCallSeconds* seconds = nullptr,
                          std::optional<std::pair<std::string, uint64_t>> pooled = std::nullopt) {
  auto s = ctx.stream.get();
  auto t = std::chrono::steady_clock::now();
  ctx.guard.reserve(1, ctx.workload.inputs().size());
  const uint64_t seed = pooled ? pooled->second : ctx.draw_seed();
  ctx.workload.generate_inputs(seed, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  CheckedCallSeconds spent;
  spent.inputs = seconds_since(t), t = std::chrono::steady_clock::now();
  auto* monitor = integrity::GpuActivityMonitor::instance();
  if (counted) {
    if (monitor) monitor->pause_kernel_records();
    ctx.counter->begin();
  }
  call_candidate_checked(ctx, what, flops, stage, label, counted);
  if (counted) {
    *counts = candidate_counts(ctx.counter->end());
    if (monitor) {
      monitor->resume_kernel_records();
      monitor->record_counted_kernels(monitor->last_call(), executed_kernels(*counts));
    }
  }
  spent.call = seconds_since(t), t = std::chrono::steady_clock::now();
  regenerate_inputs(ctx, seed, false, 0);
  if (pooled) {
    const auto t_reference = std::chrono::steady_clock::now();
    ReferenceClient(ctx.reference_fd).get(pooled->first, seed, ctx.workload, s);
    spent.reference = seconds_since(t_reference);
  } else {
    ctx.workload.compute_reference(s);
  }
  CheckOutcome o = ctx.workload.check(tol, s);  // synchronizes
  spent.reference_and_check = seconds_since(t);
  if (seconds) *seconds = spent;
  fail_if_inputs_modified(o, ctx.guard.changed(ctx.workload, 1).front());
  return o;
}

}  // namespace

void make_pooled_references(WorkerContext& ctx, const WorkerJob& job) {
  if (ctx.reference_fd < 0) return;
  ctx.channel.emit({{"type", "progress"}, {"stage", "reference_pool"}});
  const auto t0 = std::chrono::steady_clock::now();
  ReferenceClient pool(ctx.reference_fd);
  auto s = ctx.stream.get();
  int given = 0, made = 0;
  std::string not_pooled;
  const auto& items = job.correctness;
  for (size_t index = 0; index < items.size(); ++index) {
    const CorrectnessItem& item = items[index];
    if (!item.pool) continue;
    const ReferencePoolPlan& plan = *item.pool;
    const std::string key = item.shape.dump();
    ctx.workload.prepare(item.shape.get<WorkloadShape>());
    if (ctx.workload.reference_buffers().empty()) {
      not_pooled = "this workload's references are not pooled (it names no reference buffers)";
      continue;
    }
    auto& seeds = ctx.pooled_seeds[index];
    for (const uint64_t seed : plan.seeds) seeds.push_back(seed), ++given;
    for (int i = 0; i < plan.fresh; ++i, ++made) {
      const uint64_t seed = ctx.draw_seed();
      ctx.workload.generate_inputs(seed, s);
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      const auto t_reference = std::chrono::steady_clock::now();
      ctx.workload.compute_reference(s);
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      pool.put(key, seed, seconds_since(t_reference), ctx.workload, s);
      discard_reference(ctx.workload, s);
      seeds.push_back(seed);
    }
  }
  pool.seal();
  json ev = {{"type", "reference_pool"}, {"pooled", given}, {"made", made}, {"seconds", seconds_since(t0)}};
  if (!not_pooled.empty()) ev["not_pooled"] = not_pooled;
  ctx.channel.emit(ev);
}

bool run_correctness(WorkerContext& ctx, const WorkerJob& job) {
  const json& tol = job.tolerances;
  int checks = 0, failed = 0;
  json failures = json::array();
  const auto& items = job.correctness;
  for (size_t index = 0; index < items.size(); ++index) {
    const CorrectnessItem& item = items[index];
    const json& shape = item.shape;
    const std::string label = shape_label(shape);
    ctx.workload.prepare(shape.get<WorkloadShape>());
    const auto pooled = ctx.pooled_seeds.find(index);
    for (int i = 0; i < item.seeds; ++i) {
      ctx.channel.emit({{"type", "progress"}, {"stage", "correctness"}, {"shape", shape}, {"seed_index", i}});
      std::optional<std::pair<std::string, uint64_t>> set;
      if (pooled != ctx.pooled_seeds.end() && size_t(i) < pooled->second.size()) set = {{shape.dump(), pooled->second[size_t(i)]}};
      CheckedCallSeconds seconds;
      CheckOutcome o = checked_call(ctx, tol, "correctness call on " + label, item.flops, "correctness",
                                    label, false, nullptr, &seconds, set);
      ++checks;
      json ev = {{"type", "check"}, {"shape", shape}, {"seed_index", i}, {"hidden", item.hidden},
                 {"passed", o.passed}, {"summary", o.summary}, {"detail", o.detail}, {"seconds", seconds.to_json()},
                 {"reference", set ? "pooled: made before a candidate loaded, handed over after this call" : "computed after the call"}};
      ctx.channel.emit(ev);
      if (!o.passed) {
        ++failed;
        if (failures.size() < 5) failures.push_back(ev);
        break;  // one failing seed is enough for this shape
      }
    }
  }
  json stage = {{"type", "stage"}, {"name", "correctness"}, {"checks", checks}, {"failed", failed}};
  if (failed) {
    const auto& first = failures.front();
    stage["status"] = "failed";
    stage["verdict"] = "incorrect";
    stage["message"] = "wrong on " + shape_label(first.at("shape")) + (first.at("hidden").get<bool>() ? " (hidden shape)" : "") +
                       ": " + first.at("summary").get<std::string>();
    stage["failures"] = failures;
  } else {
    stage["status"] = "ok";
    stage["message"] = std::to_string(checks) + " checks passed";
  }
  ctx.channel.emit(stage);
  return failed == 0;
}

bool run_stream_discipline(WorkerContext& ctx, const WorkerJob& job) {
  const json& shape = job.gate_shape;
  const std::string label = shape_label(shape);
  auto s = ctx.stream.get();
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(ctx.draw_seed(), s);
  StreamGate gate;
  // An ungated call first, so the candidate's kernels are loaded before the gate closes. Then
  // fresh inputs, so nothing left over from that call can pass for the gated call's output.
  call_candidate_checked(ctx, "stream-discipline warm-up call on " + label, job.gate_flops,
                         "stream_discipline", label);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  ctx.workload.generate_inputs(ctx.draw_seed(), s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  bool consistent = false, expired = false;
  {
    WatchdogScope guard(ctx.watchdog, "stream-discipline call on " + label, call_time_limit(job.gate_flops) + 5);
    gate.close(2000);
    cudaError_t ret;
    {
      integrity::CallScope call(integrity::Actor::candidate_call, "stream_discipline", label);
      ret = ctx.workload.call_candidate(ctx.entry, s);
    }
    ctx.workload.snapshot_outputs(s);
    gate.release(s);
    cudaError_t done = cudaDeviceSynchronize();
    if (ret != cudaSuccess || done != cudaSuccess)
      ctx.channel.fatal_and_exit("runtime_error", "stream-discipline call on " + label + ": " +
                                                      cudaGetErrorName(ret != cudaSuccess ? ret : done), 4);
    consistent = ctx.workload.snapshot_matches_outputs();
    expired = gate.expired_before_release();
  }
  json stage = {{"type", "stage"}, {"name", "stream_discipline"}, {"shape", shape}, {"device_sync_inside_call", expired}};
  if (!consistent) {
    stage["status"] = "failed";
    stage["verdict"] = "forbidden";
    stage["message"] = "output was produced outside the given stream (it changed after the call's stream work "
                       "finished): work on another stream or deferred past the call";
  } else {
    stage["status"] = "ok";
    stage["message"] = expired ? "all work finished inside the call (the candidate synchronizes the device)"
                               : "all output produced on the given stream";
  }
  ctx.channel.emit(stage);
  return consistent;
}

bool run_target_count(WorkerContext& ctx, const WorkerJob& job) {
  json stage = {{"type", "stage"}, {"name", "target_run"}, {"method", "cupti_sass_metrics"}};
  if (!ctx.counter) {
    stage["status"] = "failed";
    stage["tool_failure"] = true;
    stage["message"] = "in-process instruction counting is unavailable: " + ctx.counter_unavailable;
    ctx.channel.emit(stage);
    return true;
  }
  const json& tol = job.tolerances;
  bool all_correct = true;
  std::string wrong;
  json shapes = json::array();
  for (const auto& item : job.count.value_or(std::vector<ShapeWork>{})) {
    const json& shape = item.shape;
    const std::string label = shape_label(shape);
    ctx.channel.emit({{"type", "progress"}, {"stage", "target_run"}, {"shape", shape}});
    ctx.workload.prepare(shape.get<WorkloadShape>());
    std::vector<integrity::ExecutedInstruction> counts;
    const auto t0 = std::chrono::steady_clock::now();
    CheckOutcome o = checked_call(ctx, tol, "counted call on " + label, item.flops, "target_run", label,
                                  true, &counts);
    json ev = target_counts_json(counts);
    const uint64_t total = ev["executed_instructions"].get<uint64_t>();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ev.update({{"type", "target_counts"}, {"shape", shape}, {"flops", item.flops}, {"check_passed", o.passed},
               {"when", "checked call"}, {"seconds", seconds}});
    ctx.channel.emit(ev);
    shapes.push_back({{"shape", shape}, {"check_passed", o.passed}, {"patched_instructions", counts.size()},
                      {"executed_instructions", total}, {"seconds", seconds}});
    if (!counts.empty() && total == 0) {
      stage["status"] = "failed";
      stage["tool_failure"] = true;
      stage["message"] = "the instruction counts read zero although " + std::to_string(counts.size()) +
                         " instructions were patched (the counting tool failed)";
      stage["shapes"] = shapes;
      ctx.channel.emit(stage);
      return true;
    }
    if (!o.passed && all_correct) all_correct = false, wrong = "the counted call on " + label + " was wrong: " + o.summary;
  }
  stage["shapes"] = shapes;
  stage["status"] = all_correct ? "ok" : "failed";
  stage["message"] = all_correct ? "instructions counted on checked calls" : wrong;
  if (!all_correct) stage["verdict"] = "incorrect";
  ctx.channel.emit(stage);
  return all_correct;
}

namespace {

// One shape's clean timing when the workspace keeps them: a stored timing of this GPU, driver,
// clocks, library version and plan is re-validated by a short check (`check_samples` samples whose
// median must lie within library_check_tolerance of the stored one) and then used; without one, or
// when the check fails, the library is timed in full. The event says which (`library_cache`: hit-
// validated, miss, revalidation-failed), why, the check's figures, and the key the timing is
// stored under (`library_key`).
void clean_baseline_from_store(WorkerContext& ctx, const ShapeWork& item, const TimingConfig& cfg, const json& rows,
                               int check_samples) {
  const json& shape = item.shape;
  const double flops = item.flops;
  const std::string label = shape_label(shape);
  std::string outcome = "miss", why;
  json check;
  CleanBaseline b;
  double seconds = 0;
  if (rows.is_array() && !rows.empty()) {
    ctx.channel.emit({{"type", "progress"}, {"stage", "baseline_check"}, {"shape", shape}});
    const CleanBaseline c = check_baseline_alone(ctx, shape, flops, cfg, check_samples);
    seconds += c.seconds;
    // The plan is known once the library has run on the shape (its warm-up calls).
    const json key = library_timing_key(ctx.timing_environment, ctx.workload.baseline_info(), label);
    if (const int i = matching_stored_timing(rows, key, &why); i >= 0) {
      const json& row = rows[size_t(i)];
      const StoredCleanTiming stored{row.at("median_ms").get<double>(), row.at("median_error").get<double>(),
                                     row.at("samples").get<int>()};
      const LibraryCheckVerdict v = judge_library_check(stored, c.median_ms, c.samples);
      check = {{"samples", c.samples},          {"median_ms", c.median_ms},     {"median_error", c.median_error},
               {"stored_median_ms", stored.median_ms}, {"stored_median_error", stored.median_error},
               {"stored_samples", stored.samples}, {"stored_at", row.value("measured_at", "")},
               {"deviation", v.deviation},       {"tolerance", v.tolerance},   {"seconds", c.seconds}};
      if (v.accepted) {
        outcome = "hit-validated";
        b = {stored.median_ms, stored.median_error, stored.samples, row.value("sm_clock_mhz", 0.0), c.seconds};
      } else {
        outcome = "revalidation-failed";
        char line[200];
        std::snprintf(line, sizeof line, "the check's median %.5f ms is %+.2f%% off the stored %.5f ms (tolerance %.2f%%)",
                      c.median_ms, v.deviation * 100, stored.median_ms, v.tolerance * 100);
        why = line;
      }
    }
  } else {
    why = "no stored timing for this GPU, driver, clocks and shape";
  }
  if (outcome != "hit-validated") {
    ctx.channel.emit({{"type", "progress"}, {"stage", "baseline_alone"}, {"shape", shape}});
    b = time_baseline_alone(ctx, shape, flops, cfg);
    seconds += b.seconds;
  }
  ctx.clean_baseline[label] = b;
  json ev = {{"type", "baseline_alone"}, {"shape", shape}, {"median_ms", b.median_ms}, {"median_error", b.median_error},
             {"samples", b.samples}, {"sm_clock_mhz", b.sm_clock_mhz}, {"seconds", seconds},
             {"library_cache", outcome},
             {"library_key", library_timing_key(ctx.timing_environment, ctx.workload.baseline_info(), label)}};
  if (!check.is_null()) ev["check"] = check;
  if (!why.empty()) ev["library_cache_reason"] = why;
  if (outcome == "hit-validated") {
    ev["cached"] = true;
    ev["when"] = "stored, measured at " + check.value("stored_at", std::string("?")) + "; re-validated by " +
                 std::to_string(check_samples) + " samples before the candidate was loaded";
  } else {
    ev["when"] = "before the candidate was loaded";
  }
  ctx.channel.emit(ev);
}

}  // namespace

void run_clean_baseline(WorkerContext& ctx, const WorkerJob& job) {
  const TimingConfig cfg = TimingConfig::from_json(job.timing_config.value_or(json::object()));
  if (!cfg.with_baseline) return;
  // The service's cache of clean timings on this GPU (judge/caches/baseline_cache.h), keyed by shape.
  const json cached = job.baseline_alone_cache.value_or(json::object());
  for (const auto& item : job.timing.value_or(std::vector<ShapeWork>{})) {
    const std::string key = item.shape.dump();
    if (cached.contains(key)) {
      // Not timed, but still run before the candidate loads: its first calls load libraries
      // (cuDNN's engines map executable code), which the after-load filter would stop and blame
      // on the candidate (seen on the H200: every cached attention shape judged forbidden).
      ctx.channel.emit({{"type", "progress"}, {"stage", "baseline_warm_up"}, {"shape", item.shape}});
      warm_baseline_alone(ctx, item.shape, item.flops, cfg);
      const json& c = cached.at(key);
      CleanBaseline b{c.at("median_ms").get<double>(), c.at("median_error").get<double>(), c.at("samples").get<int>(),
                      c.at("sm_clock_mhz").get<double>()};
      ctx.clean_baseline[shape_label(item.shape)] = b;
      ctx.channel.emit({{"type", "baseline_alone"}, {"shape", item.shape}, {"median_ms", b.median_ms},
                        {"median_error", b.median_error}, {"samples", b.samples}, {"sm_clock_mhz", b.sm_clock_mhz},
                        {"cached", true}, {"when", c.value("when", "cached")}});
      continue;
    }
    // The workspace's stored clean timings (docs/library-timing-cache.md); absent: that cache is off.
    if (job.library_timing_cache && job.library_timing_cache->is_object()) {
      clean_baseline_from_store(ctx, item, cfg, job.library_timing_cache->value(key, json::array()),
                                job.library_timing_check_samples.value_or(kLibraryCheckSamples));
      continue;
    }
    ctx.channel.emit({{"type", "progress"}, {"stage", "baseline_alone"}, {"shape", item.shape}});
    CleanBaseline b = time_baseline_alone(ctx, item.shape, item.flops, cfg);
    ctx.clean_baseline[shape_label(item.shape)] = b;
    ctx.channel.emit({{"type", "baseline_alone"}, {"shape", item.shape}, {"median_ms", b.median_ms},
                      {"median_error", b.median_error}, {"samples", b.samples}, {"sm_clock_mhz", b.sm_clock_mhz},
                      {"seconds", b.seconds}, {"when", "before the candidate was loaded"}});
  }
  // A worker that only times keeps the GPU alone through its load and first warm-up calls: giving
  // it back would cost a second wait for the other lanes' stages to end (H200 bench: two drains per
  // uncached problem, seconds each, for a load and warm-up of well under one). A worker with
  // correctness work before its timing shares the GPU again for it.
  if (job.has_correctness()) ctx.give_back_exclusive_gpu();
}

bool run_timing(WorkerContext& ctx, const WorkerJob& job) {
  const TimingConfig cfg = TimingConfig::from_json(job.timing_config.value_or(json::object()));
  bool ok = true;
  std::string message, verdict;
  std::vector<json> timings;
  std::vector<std::pair<ShapeWork, double>> drifted;  // (timing item, drift)
  for (const auto& item : job.timing.value_or(std::vector<ShapeWork>{})) {
    ctx.channel.emit({{"type", "progress"}, {"stage", "timing"}, {"shape", item.shape}});
    json t = time_shape(ctx, item.shape, item.flops, cfg, job.count.has_value());
    if (t.contains("counted_instructions")) {
      // The secretly counted timed sample: its counts go with the others (checked by its timed check).
      json ev = t["counted_instructions"];
      bool sample_ok = true;
      for (const auto& f : t.at("timed_check_failures")) sample_ok = sample_ok && f.at("side") != "candidate";
      ev.update({{"type", "target_counts"}, {"shape", item.shape}, {"flops", item.flops},
                 {"check_passed", sample_ok}, {"when", "timed sample " + std::to_string(t["counted_sample"].get<int>())}});
      ctx.channel.emit(ev);
      t.erase("counted_instructions");
    }
    const std::string label = shape_label(item.shape);
    if (auto it = ctx.clean_baseline.find(label); it != ctx.clean_baseline.end() && t.contains("baseline") &&
                                                  it->second.median_ms > 0) {
      const double drift = t["baseline"]["median_ms"].get<double>() / it->second.median_ms - 1;
      t["baseline_alone"] = {{"before_ms", it->second.median_ms}, {"drift", drift}};
      if (std::fabs(drift) > kDriftReported) drifted.emplace_back(item, drift);
    }
    for (const auto& f : t.at("timed_check_failures"))
      if (f.at("side") == "candidate" && ok) {
        ok = false;
        verdict = "incorrect";
        message = "a timed call on " + label + " failed its check: " + f.at("why").get<std::string>();
      }
    if (t.at("below_floor").get<bool>() && ok) {
      ok = false;
      verdict = "forbidden";
      message = "impossible time on " + label + ": median " + std::to_string(t["candidate"]["median_ms"].get<double>()) +
                " ms is below the hardware floor " + std::to_string(t["floor_ms"].get<double>()) + " ms";
    }
    timings.push_back(std::move(t));
  }
  // The baseline beside the candidate disagrees with the baseline alone: measure it alone again.
  // Back to normal alone means the candidate slowed it; still off means the GPU changed.
  json drift_report = json::array();
  const auto retimed_from = std::chrono::steady_clock::now();
  for (auto& [item, drift] : drifted) {
    const std::string label = shape_label(item.shape);
    CleanBaseline again = time_baseline_alone(ctx, item.shape, item.flops, cfg);
    const double before = ctx.clean_baseline[label].median_ms;
    const double after_drift = before > 0 ? again.median_ms / before - 1 : 0;
    for (auto& t : timings)
      if (shape_label(t.at("shape")) == label) {
        t["baseline_alone"]["after_ms"] = again.median_ms;
        t["baseline_alone"]["after_drift"] = after_drift;
        const double beside = t["baseline"]["median_ms"].get<double>();
        char line[320];
        std::snprintf(line, sizeof line, "on %s the library took %.4f ms alone before the candidate, %.4f ms beside it, "
                      "%.4f ms alone after it", label.c_str(), before, beside, again.median_ms);
        drift_report.push_back(line);
        if (!ok) break;
        if (std::fabs(after_drift) > kDriftReported) {
          ok = false, verdict = "infra_error";
          message = std::string("the GPU's speed changed during the evaluation: ") + line;
        } else if (drift > kDriftForbidden) {
          ok = false, verdict = "forbidden";
          message = std::string("the library ran ") + std::to_string(int(std::lround(drift * 100))) +
                    "% slower beside the candidate than alone: " + line;
        }
      }
  }
  for (auto& t : timings) {
    t["type"] = "timing";
    ctx.channel.emit(t);
  }
  json stage = {{"type", "stage"}, {"name", "timing"}, {"status", ok ? "ok" : "failed"},
                {"message", ok ? "every timed output checked" : message}, {"baseline", ctx.workload.baseline_info()},
                {"sampling_rule", sampling_rule_json(cfg)}};
  if (!drift_report.empty()) {
    stage["baseline_drift"] = drift_report;
    stage["baseline_drift_seconds"] = seconds_since(retimed_from);  // the library timed alone again
  }
  if (!ok) stage["verdict"] = verdict;
  ctx.channel.emit(stage);
  return ok;
}

bool run_integrity_audit(WorkerContext& ctx, const std::string& after, bool final_report) {
  auto* monitor = integrity::GpuActivityMonitor::instance();
  if (!monitor) return true;
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  monitor->flush();
  const integrity::Observations obs = monitor->observations();
  const auto violations = integrity::audit(obs);
  if (violations.empty() && !final_report) return true;
  json list = json::array();
  for (const auto& v : violations) list.push_back({{"rule", v.rule}, {"message", v.message}});
  json refused = json::array();
  for (const auto& e : obs.api_events)
    if (e.refused) refused.push_back(e.api);
  std::set<std::string> kernels;
  size_t candidate_kernels = 0, baseline_kernels = 0, harness_kernels = 0;
  std::map<uint32_t, const integrity::Launch*> by_corr;
  for (const auto& l : obs.launches) by_corr[l.correlation] = &l;
  for (const auto& w : obs.work) {
    if (w.kind != integrity::DeviceWork::Kind::kernel) continue;
    auto it = by_corr.find(w.correlation);
    const auto actor = it == by_corr.end() ? integrity::Actor::harness : it->second->actor;
    if (integrity::is_candidate(actor)) ++candidate_kernels, kernels.insert(w.name);
    else if (actor == integrity::Actor::baseline) ++baseline_kernels;
    else ++harness_kernels;
  }
  json modules = json::array();
  for (const auto& m : obs.modules)
    if (m.candidate_image || integrity::is_candidate(m.actor))
      modules.push_back({{"bytes", m.bytes}, {"candidate_image", m.candidate_image}, {"functions", m.functions}});
  json stage = {{"type", "stage"}, {"name", "integrity"}, {"after", after},
                {"candidate_calls", std::count_if(obs.calls.begin(), obs.calls.end(), [](const auto& c) {
                   return c.actor == integrity::Actor::candidate_call; })},
                {"kernels", {{"candidate", candidate_kernels}, {"baseline", baseline_kernels}, {"harness", harness_kernels}}},
                {"candidate_kernel_names", kernels}, {"candidate_modules", modules},
                {"refused_entry_points", refused}, {"dropped_records", obs.dropped_records}, {"violations", list},
                {"map_and_stream_seconds", monitor->map_and_stream_seconds()}};
  if (!violations.empty()) {
    stage["status"] = "failed";
    stage["verdict"] = "forbidden";
    stage["message"] = violations.front().message + (violations.size() > 1 ? " (+" + std::to_string(violations.size() - 1) + " more)" : "");
  } else if (obs.dropped_records > 0) {
    stage["status"] = "failed";
    stage["verdict"] = "infra_error";
    stage["message"] = "CUPTI dropped " + std::to_string(obs.dropped_records) + " activity records: the GPU work could not all be accounted for";
  } else {
    stage["status"] = "ok";
    stage["message"] = std::to_string(candidate_kernels) + " candidate kernels accounted for, all on the given stream, from its own code" +
                       (refused.empty() ? "" : "; " + std::to_string(refused.size()) + " entry-point request(s) refused");
  }
  ctx.channel.emit(stage);
  return violations.empty() && obs.dropped_records == 0;
}

void run_single_call(WorkerContext& ctx, const json& shape, double flops, bool nvtx_range, bool check, const json& tol) {
  auto s = ctx.stream.get();
  const std::string label = shape_label(shape);
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.guard.reserve(1, ctx.workload.inputs().size());
  const uint64_t seed = ctx.draw_seed();
  ctx.workload.generate_inputs(seed, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  if (nvtx_range) nvtxRangePushA(kCandidateNvtxRange);
  call_candidate_checked(ctx, "call on " + label, flops, "single_call", label);
  if (nvtx_range) nvtxRangePop();
  json stage = {{"type", "stage"}, {"name", "single_call"}, {"status", "ok"}, {"shape", shape}};
  if (check) {
    regenerate_inputs(ctx, seed, false, 0);
    ctx.workload.compute_reference(s);
    CheckOutcome o = ctx.workload.check(tol, s);
    fail_if_inputs_modified(o, ctx.guard.changed(ctx.workload, 1).front());
    stage["check_passed"] = o.passed;
    stage["check_summary"] = o.summary;
  }
  ctx.channel.emit(stage);
}

void run_self_test(WorkerContext& ctx, const WorkerJob& job) {
  auto s = ctx.stream.get();
  json results = json::array();
  bool ok = true;
  for (const auto& shape : job.fp64_shapes) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e57, s);
    ctx.workload.compute_reference(s);
    json r = ctx.workload.validate_reference_fp64(s);
    ok = ok && r.at("passed").get<bool>();
    results.push_back({{"shape", shape}, {"reference_vs_fp64", r}});
  }
  for (const auto& shape : job.baseline_shapes) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e58, s);
    ctx.workload.poison_outputs(s);
    ctx.workload.call_baseline(s);
    ctx.workload.compute_reference(s);
    CheckOutcome o = ctx.workload.check(job.tolerances, s);
    ok = ok && o.passed;
    results.push_back({{"shape", shape}, {"baseline_vs_reference", o.detail}, {"passed", o.passed}, {"summary", o.summary}});
  }
  json stage = {{"type", "stage"}, {"name", "self_test"}, {"status", ok ? "ok" : "failed"}, {"results", results}};
  if (!job.baseline_shapes.empty()) stage["baseline"] = ctx.workload.baseline_info();
  ctx.channel.emit(stage);
}

}  // namespace ptxbench

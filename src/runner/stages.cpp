#include "runner/stages.h"

#include <nvtx3/nvToolsExt.h>

#include "probes/ncu_probe.h"
#include "runner/device_ops.h"
#include "runner/timing.h"

namespace ptxbench {

bool run_correctness(WorkerContext& ctx, const json& job) {
  auto s = ctx.stream.get();
  const uint64_t seed = job.at("seed").get<uint64_t>();
  const json& tol = job.at("tolerances");
  int checks = 0, failed = 0;
  json failures = json::array();
  for (const auto& item : job.at("correctness")) {
    const json& shape = item.at("shape");
    const std::string label = shape_label(shape);
    ctx.workload.prepare(shape.get<WorkloadShape>());
    for (int i = 0; i < item.at("seeds").get<int>(); ++i) {
      const uint64_t check_seed = seed ^ (0x5151ull * (checks + 1)) ^ (uint64_t(i) << 40);
      ctx.channel.emit({{"type", "progress"}, {"stage", "correctness"}, {"shape", shape}, {"seed_index", i}});
      ctx.workload.generate_inputs(check_seed, s);
      ctx.workload.compute_reference(s);
      ctx.workload.poison_outputs(s);
      PTXBENCH_CUDA(cudaStreamSynchronize(s));
      call_candidate_checked(ctx, "correctness call on " + label, item.at("flops").get<double>());
      CheckOutcome o = ctx.workload.check(tol, s);
      ++checks;
      json ev = {{"type", "check"}, {"shape", shape}, {"seed_index", i}, {"hidden", item.value("hidden", false)},
                 {"passed", o.passed}, {"summary", o.summary}, {"detail", o.detail}};
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

bool run_stream_discipline(WorkerContext& ctx, const json& job) {
  const json& shape = job.at("gate_shape");
  const std::string label = shape_label(shape);
  auto s = ctx.stream.get();
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(job.at("seed").get<uint64_t>() ^ 0x6a7e, s);
  StreamGate gate;
  // An ungated call first, so the candidate's kernels are loaded before the gate closes. Then
  // fresh inputs, so nothing left over from that call can pass for the gated call's output.
  call_candidate_checked(ctx, "stream-discipline warm-up call on " + label, job.at("gate_flops").get<double>());
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  ctx.workload.generate_inputs(job.at("seed").get<uint64_t>() ^ 0x6a7f, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  bool consistent = false, expired = false;
  {
    WatchdogScope guard(ctx.watchdog, "stream-discipline call on " + label, call_time_limit(job.at("gate_flops")) + 5);
    gate.close(2000);
    cudaError_t ret = ctx.workload.call_candidate(ctx.entry, s);
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

bool run_timing(WorkerContext& ctx, const json& job) {
  const TimingConfig cfg = TimingConfig::from_json(job.value("timing_config", json::object()));
  const uint64_t seed = job.at("seed").get<uint64_t>();
  bool ok = true;
  std::string message, verdict;
  int idx = 0;
  for (const auto& item : job.at("timing")) {
    ctx.channel.emit({{"type", "progress"}, {"stage", "timing"}, {"shape", item.at("shape")}});
    json t = time_shape(ctx, item.at("shape"), item.at("flops").get<double>(), seed ^ (0x7117ull << (8 + idx++)), cfg);
    t["type"] = "timing";
    ctx.channel.emit(t);
    std::string label = shape_label(item.at("shape"));
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
  }
  json stage = {{"type", "stage"}, {"name", "timing"}, {"status", ok ? "ok" : "failed"},
                {"message", ok ? "every timed output checked" : message}, {"baseline", ctx.workload.baseline_info()}};
  if (!ok) stage["verdict"] = verdict;
  ctx.channel.emit(stage);
  return ok;
}

void run_single_call(WorkerContext& ctx, const json& shape, double flops, bool nvtx_range) {
  auto s = ctx.stream.get();
  ctx.workload.prepare(shape.get<WorkloadShape>());
  ctx.workload.generate_inputs(0x5eed, s);
  ctx.workload.poison_outputs(s);
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  if (nvtx_range) nvtxRangePushA(kCandidateNvtxRange);
  call_candidate_checked(ctx, "call on " + shape_label(shape), flops);
  if (nvtx_range) nvtxRangePop();
  ctx.channel.emit({{"type", "stage"}, {"name", "single_call"}, {"status", "ok"}, {"shape", shape}});
}

void run_self_test(WorkerContext& ctx, const json& job) {
  auto s = ctx.stream.get();
  json results = json::array();
  bool ok = true;
  for (const auto& shape : job.at("fp64_shapes")) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e57, s);
    ctx.workload.compute_reference(s);
    json r = ctx.workload.validate_reference_fp64(s);
    ok = ok && r.at("passed").get<bool>();
    results.push_back({{"shape", shape}, {"reference_vs_fp64", r}});
  }
  for (const auto& shape : job.at("baseline_shapes")) {
    ctx.workload.prepare(shape.get<WorkloadShape>());
    ctx.workload.generate_inputs(0x7e58, s);
    ctx.workload.compute_reference(s);
    ctx.workload.poison_outputs(s);
    ctx.workload.call_baseline(s);
    CheckOutcome o = ctx.workload.check(job.at("tolerances"), s);
    ok = ok && o.passed;
    results.push_back({{"shape", shape}, {"baseline_vs_reference", o.detail}, {"passed", o.passed}, {"summary", o.summary}});
  }
  json stage = {{"type", "stage"}, {"name", "self_test"}, {"status", ok ? "ok" : "failed"}, {"results", results}};
  if (!job.at("baseline_shapes").empty()) stage["baseline"] = ctx.workload.baseline_info();
  ctx.channel.emit(stage);
}

}  // namespace ptxbench

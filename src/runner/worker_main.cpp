// ptxbench-worker: one process per job on one GPU. It loads the candidate, runs the stages the
// job names and reports JSON lines over the result pipe (--result-fd), never over stdout.
//
//   ptxbench-worker --info [--job info.json] [--result-fd N]
//   ptxbench-worker --job job.json --result-fd N
//   ptxbench-worker --list-workloads      (JSON on stdout: workload -> baselines; no GPU needed)
//
// The job file carries the result channel's key; it is read and deleted before any candidate
// code is loaded, and the key stays in this process only.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <fstream>
#include <iostream>
#include <optional>
#include <utility>

#include "core/error.h"
#include "core/timestamp.h"
#include "core/worker_protocol.h"
#include "probes/nvml_monitor.h"
#include "runner/candidate_library.h"
#include "runner/counted_call.h"
#include "runner/detail/cuda_check.h"
#include "runner/integrity/gpu_activity_monitor.h"
#include "runner/reference_client.h"
#include "runner/sandbox_guard.h"
#include "runner/shared_pause.h"
#include "runner/stages/worker_stages.h"
#include "runner/triton/triton_session.h"

using namespace ptxbench;

namespace {

struct Args {
  bool info = false;
  bool list_workloads = false;
  std::string job;
  int result_fd = -1;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InputError(s + " needs a value");
      return argv[++i];
    };
    if (s == "--info") a.info = true;
    else if (s == "--list-workloads") a.list_workloads = true;
    else if (s == "--job") a.job = value();
    else if (s == "--result-fd") a.result_fd = std::stoi(value());
    else throw InputError("unknown argument '" + s + "' (use --info, or --job FILE --result-fd N)");
  }
  if (!a.info && !a.list_workloads && a.job.empty()) throw InputError("missing --job FILE (or --info)");
  return a;
}

json read_job(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read job file " + path);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError("job file " + path + " is not valid JSON");
  unlink(path.c_str());  // the candidate never gets to read its own job (seeds, shapes)
  return j;
}

WorkerHello device_info(int device, int& major, int& minor, int& sms, std::string& name) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0)
    throw CudaError(e, std::string("no CUDA GPU: ") + (e == cudaSuccess ? "device count is 0" : cudaGetErrorString(e)) +
                           (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice
                                ? " (no NVIDIA driver or GPU on this machine)"
                                : ""));
  if (device >= count)
    throw Error("GPU " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)");
  PTXBENCH_CUDA(cudaSetDevice(device));
  PTXBENCH_CUDA(cudaFree(nullptr));  // create the context now, not inside a timed region
  cudaDeviceProp p{};
  PTXBENCH_CUDA(cudaGetDeviceProperties(&p, device));
  major = p.major, minor = p.minor, sms = p.multiProcessorCount, name = p.name;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  // What the library's stored clean timings are matched by (runner/library_timing_check.h): NVML's
  // UUID, driver and clock/power state; CUDA's UUID and driver version where NVML does not answer.
  json env = NvmlMonitor(device).timing_environment();
  if (env.value("gpu_uuid", "").empty()) {
    char uuid[64];
    const auto* b = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
    std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    env["gpu_uuid"] = uuid;
  }
  if (env.value("driver", "").empty()) env["driver"] = "CUDA driver " + std::to_string(driver);
  WorkerHello hello;
  hello.gpu = p.name;
  hello.cc = std::to_string(p.major) + "." + std::to_string(p.minor);
  hello.sm_count = p.multiProcessorCount;
  hello.memory_bytes = p.totalGlobalMem;
  hello.l2_bytes = uint64_t(p.l2CacheSize);
  hello.cuda_runtime = runtime;
  hello.cuda_driver = driver;
  hello.device = device;
  hello.timing_environment = std::move(env);
  return hello;
}

// The channel's key, taken out of the job (which is already deleted from disk) before the job is
// read as the protocol's (core/worker_protocol.h): a job this worker refuses is refused on the
// signed channel.
WorkerJob take_key_and_parse(json& raw, ResultChannel& channel) {
  if (auto k = raw.find("channel_key"); k != raw.end() && k->is_string()) {
    channel.set_key(k->get<std::string>());
    raw.erase(k);
  }
  return parse_worker_job(raw);
}

int run(const Args& args, ResultChannel& channel) {
  int major = 0, minor = 0, sms = 0;
  std::string name;
  if (args.info) {
    if (!args.job.empty()) {
      json raw = read_job(args.job);
      take_key_and_parse(raw, channel);
    }
    channel.emit(to_json(device_info(0, major, minor, sms, name)));
    channel.emit({{"type", "done"}});
    return 0;
  }
  json raw = read_job(args.job);
  const WorkerJob job = take_key_and_parse(raw, channel);
  install_sigsys_reporter(channel);
  const std::string& mode = job.mode;
  if (mode == "info") throw InputError("an info job is run with --info");
  set_time_limit_scale(job.watchdog_scale);
  const WorkerHello hello = device_info(job.device, major, minor, sms, name);
  channel.emit(to_json(hello));
  auto workload = make_workload(job.workload);
  workload->configure(job.workload_options, job.tolerances);
  Watchdog watchdog(channel);
  WorkerContext ctx{channel, watchdog, *workload};
  ctx.cc_major = major, ctx.cc_minor = minor, ctx.sm_count = sms, ctx.gpu_name = name;
  ctx.timing_environment = hello.timing_environment;
  channel.emit({{"type", "gpu_state"}, {"state", ctx.nvml.read().to_json()}, {"driver", ctx.nvml.driver_version()}});

  ctx.device = job.device;
  ctx.exclusive_gpu_fd = job.exclusive_gpu_fd;
  if (job.fixed_seed) ctx.use_fixed_seeds(*job.fixed_seed);
  // The GPU activity monitor and the in-process instruction counter run only where no other
  // CUDA tool is injected (compute-sanitizer and ncu bring their own).
  ctx.accounting = mode == "eval" && job.accounting;
  // The timed part of a split job can pause while it starts (until its first request for the GPU
  // alone, which closes the socket: WorkerContext::take_exclusive_gpu), for another timed worker's
  // window: from its first harness step on (another's request waits for it to answer, 2 s at
  // most, before it falls back to a drain), before its candidate loads, around its warm-up calls.
  const bool pausable_start =
      mode == "eval" && job.timing && !job.has_correctness() && ctx.accounting && ctx.exclusive_gpu_fd >= 0;
  if (ctx.accounting) {
    GpuActivityMonitor::start(ctx.stream.get());
    if (job.pause_fd >= 0 && pausable_start) {
      ctx.pause_fd = job.pause_fd;
      pause_point(ctx);  // its first: the activity monitor records from here on
    }
    // The timed part of a split job: the kernels its first worker's counted calls ran, per shape,
    // which this worker's timed calls of the same shape must also run.
    for (const auto& c : job.earlier_counted_kernels.value_or(std::vector<CountedKernels>{}))
      GpuActivityMonitor::instance()->record_earlier_counted_call(shape_label(c.shape), c.kernels);
    if (job.count && job.timing) {
      // Before the candidate loads (the profiler loads its libraries now, not under the candidate's
      // filters): the timed samples' work counters (runner/timed_work.h).
      ctx.work_counters =
          WorkCounters::create(nullptr, ctx.device, 8, workload->math_class(), &ctx.work_counters_unavailable);
    }
    if (job.count) ctx.counter = SassCounter::create(ctx.device, &ctx.counter_unavailable);
  }

  pause_point(ctx);  // the profiler's set-up done
  if (mode == "eval") {
    // The library alone first, before any candidate code is in the process.
    if (job.timing) run_clean_baseline(ctx, job);
    ctx.reference_fd = job.reference_pool_fd;
    make_pooled_references(ctx, job);
  }
  // The timed worker asks for the GPU alone just before its first timed sample (time_shape), after
  // its candidate loaded and the first shape's warm-up calls ran beside the other lanes' work (the
  // library's clean timings had it alone and gave it back). Its socket is then within the
  // candidate's reach: the grant's token says whose answer it was (judge/timed_grant.h). A
  // worker that times nothing closes it now.
  if (!job.timing && ctx.exclusive_gpu_fd >= 0) ::close(std::exchange(ctx.exclusive_gpu_fd, -1));
  // A shared worker pauses between its calls when a timed worker on its GPU asks for it alone
  // (runner/shared_pause.h); only with the activity monitor, whose records its report is made of.
  if (job.pause_fd >= 0 && !pausable_start) {
    if (mode == "eval" && !job.timing && ctx.accounting) ctx.pause_fd = job.pause_fd;
    else ::close(job.pause_fd);
  }
  pause_point(ctx);  // the last harness step before the candidate loads
  std::optional<CandidateLibrary> lib;
  if (job.candidate) {
    const std::filesystem::path so = *job.candidate;
    // A Triton candidate's kernels are the cubins its preparation compiled (Triton loads them from
    // the evaluation's cache); its shared object is the judge's shim, with none of its own.
    const json* triton = job.triton ? &*job.triton : nullptr;
    std::vector<CubinImage> images;
    if (triton) {
      const auto files = triton->at("images").get<std::vector<std::filesystem::path>>();
      images = read_cubin_files(files);
      // Its kernels' specializations share names: counts are told apart by their cubin.
      std::map<uint32_t, std::string> names;
      for (size_t i = 0; i < files.size(); ++i)
        if (uint32_t crc = cubin_crc(images[i].bytes)) names[crc] = files[i].filename().string();
      name_counted_cubins(std::move(names));
    } else {
      images = read_fatbin_cubins(so);
    }
    if (auto* m = GpuActivityMonitor::instance()) m->expect_candidate_images(std::move(images));
    // The candidate filters go on around the load: its static constructors already run confined.
    const json sandbox = job.sandbox.value_or(json::object());
    channel.emit({{"type", "progress"}, {"stage", "candidate_load"}});
    json report = {{"type", "sandbox"}, {"before_load", confine_before_candidate_load(sandbox)}};
    size_t triton_scratch = 0;
    {
      CallScope loading(Actor::candidate_load, "load", "");
      if (triton) triton_scratch = start_session(*triton, channel);
      lib.emplace(so, job.entry);
    }
    give_scratch(triton_scratch);
    report["after_load"] = confine_after_candidate_load(sandbox);
    channel.emit(report);
    ctx.entry = lib->entry();
  }
  if (mode == "eval") {
    // Stream discipline first: work made off the given stream is then named for what it is,
    // rather than showing up later as a racy wrong answer. After each stage, the GPU activity
    // audit: a violation ends the evaluation as forbidden (its stage says why).
    bool clean = run_integrity_audit(ctx, "load", false);
    bool good = true, disciplined = true;
    if (clean && job.stream_discipline) {
      good = disciplined = run_stream_discipline(ctx, job);
      clean = run_integrity_audit(ctx, "stream_discipline", false);
    }
    if (clean && good) {
      good = run_correctness(ctx, job);
      clean = run_integrity_audit(ctx, "correctness", false);
    }
    // Counted calls also for an incorrect candidate: which targets ran is useful feedback.
    // counted_calls false: the timed part of a split job (the counter stays for the timed sample).
    if (clean && disciplined && job.count && job.counted_calls) {
      good = run_target_count(ctx, job) && good;
      clean = run_integrity_audit(ctx, "target_run", false);
    }
    if (clean && good && job.timing) run_timing(ctx, job);
    if (ctx.exclusive_gpu_fd >= 0) ::close(std::exchange(ctx.exclusive_gpu_fd, -1));
    if (clean) run_integrity_audit(ctx, "the last stage", true);
  } else if (mode == "single_call") {
    run_single_call(ctx, job.shape, job.flops, job.nvtx_range, job.check, job.tolerances);
  } else if (mode == "self_test") {
    run_self_test(ctx, job);
  } else {
    throw InputError("unknown job mode '" + mode + "'");
  }
  channel.emit({{"type", "done"}, {"at_ns", monotonic_clock_ns()}});
  // A timed worker holds its GPU alone until it has ended: with its results sent, it ends now,
  // without the candidate's and the libraries' destructors, freeing device memory call by call, or
  // the CUDA and CUPTI teardown (the driver reclaims the context as the process goes). Under an
  // injected tool (no accounting there) the tool's own exit path runs.
  if (mode == "eval" && job.timing && ctx.accounting) {
    std::fflush(nullptr);
    ::_exit(0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptxbench-worker: " << e.what() << "\n";
    return 64;
  }
  if (args.list_workloads) {
    json list = json::object();
    for (const auto& [name, w] : workload_registry()) list[name] = w.baselines;
    std::cout << list.dump() << "\n";
    return 0;
  }
  ResultChannel channel(args.result_fd);
  try {
    return run(args, channel);
  } catch (const ReferenceRefused& e) {
    // The harness asks for each pooled reference once, after its call: a refusal means candidate
    // code reached the pool first (the service records that too).
    channel.emit({{"type", "fatal"}, {"verdict", "forbidden"}, {"message", e.what()}});
    return 7;
  } catch (const CudaError& e) {
    // After the candidate has run, a CUDA failure in the harness is its sticky error.
    channel.emit({{"type", "fatal"}, {"verdict", "cuda_error"}, {"message", e.what()}});
    return 5;
  } catch (const std::exception& e) {
    channel.emit({{"type", "fatal"}, {"verdict", "infra_error"}, {"message", e.what()}});
    return 6;
  }
}

// Judges one candidate through the pipeline of stages into its record.
#include "judge/evaluator.h"

#include <unistd.h>

#include <cmath>

#include "core/arch.h"
#include "core/bytes.h"
#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "judge/candidate_files.h"
#include "judge/stages/pipeline.h"
#include "judge/stages/provenance.h"
#include "judge/stages/sass_scan.h"
#include "judge/stages/verdict_decision.h"
#include "judge/stages/worker_jobs.h"
#include "judge/stages/triton_gpu_prepare.h"
#include "judge/stages/worker_runs.h"

namespace ptxbench {
namespace fs = std::filesystem;

Evaluator::Evaluator(EvalOptions options, ProgressFn progress)
    : opt_(std::move(options)), progress_(std::move(progress)) {
  if (opt_.worker.empty()) opt_.worker = locate_worker();
  if (opt_.workspace.empty()) opt_.workspace = ".ptxbench";
  // nvcc and the worker run from their own folders in the sandbox: a relative path would not resolve there.
  opt_.workspace = fs::absolute(opt_.workspace).lexically_normal();
}

const std::string& Evaluator::gpu_unavailable_reason() {
  if (gpu_reason_) return *gpu_reason_;
  auto run = run_worker(worker_launch(opt_, {}, std::chrono::seconds(60)), nullptr);
  if (run.tampered) {
    gpu_reason_ = "the worker's --info report failed verification: " + *run.tampered;
  } else if (auto h = run.hello(); h && run.done) {
    gpu_hello_ = *h;
    gpu_reason_ = "";
  } else if (run.fatal) {
    gpu_reason_ = run.fatal->value("message", "the worker found no GPU");
  } else {
    gpu_reason_ = "the worker could not start (" + run.process.describe() + "): " + run.output_tail(400);
  }
  return *gpu_reason_;
}

EvaluationRecord Evaluator::evaluate(const ProblemSpec& p, const fs::path& candidate) {
  return judge(p, prepare(p, candidate));
}

PreparedCandidate Evaluator::prepare(const ProblemSpec& p, const fs::path& candidate, const fs::path& source_folder) {
  const std::string source = read_file_bytes(candidate, "candidate");
  PreparedCandidate prep;
  EvaluationRecord& r = prep.record;
  r.problem = p.name;
  r.language = std::string(to_string(opt_.language));
  r.arch = opt_.arch;
  r.candidate_path = candidate.string();
  r.candidate_sha256 = content_sha256(source);
  r.created_at = utc_timestamp();
  const ArchTargets* targets = p.targets_for(opt_.arch);
  if (!targets) throw InputError("problem '" + p.name + "' defines no targets for arch " + opt_.arch);
  const fs::path out_dir = opt_.workspace / "builds" /
                           (r.candidate_sha256.substr(0, 16) + "-" + opt_.arch + "-" + std::to_string(getpid()) + "-" +
                            std::to_string(build_counter_++));
  // The copy's relative includes resolve from the folder its file came from (quoted includes are
  // searched in the including file's folder, then on the include path).
  EvalOptions build_options = opt_;
  std::error_code ec;
  if (!source_folder.empty() && fs::is_directory(source_folder, ec)) {
    build_options.include_dirs.push_back(fs::absolute(source_folder));
    build_options.readable_roots.push_back(fs::absolute(source_folder));
  }
  CpuStageRun run{p, build_options, *targets, candidate, source, out_dir, progress_, prep};
  prep.ready_for_gpu = run_cpu_stages(run);
  prep.shared_object = run.build.ok ? run.build.shared_object : fs::path();
  prep.build_dir = out_dir;
  return prep;
}

EvaluationRecord Evaluator::judge(const ProblemSpec& p, PreparedCandidate prep) {
  EvaluationRecord& r = prep.record;
  const bool static_ok = prep.ready_for_gpu;
  std::string skip_reason;
  if (!static_ok) skip_reason = "an earlier stage failed";
  else if (!opt_.use_gpu) skip_reason = "--no-gpu: static checks only";
  else if (const auto& why = gpu_unavailable_reason(); !why.empty()) skip_reason = "no usable GPU (" + why + ")";
  else if (const std::string cc = gpu_hello_.value("cc", ""); cc != arch_info(opt_.arch).compute_capability)
    skip_reason = "the GPU (" + gpu_hello_.value("gpu", "?") + ", compute capability " + cc + ") cannot run " +
                  opt_.arch + " code: static checks only";
  if (skip_reason.empty()) {
    r.environment["gpu"] = gpu_hello_;
    const uint64_t seed = job_seed(opt_.seed);
    EvalOptions options = opt_;
    fs::path shared_object = prep.shared_object;
    json triton_job, device_tensor_maps = json::object();
    SassListing image_listing;
    if (opt_.language == Language::triton) {
      note("triton: kernels and launchers for every shape of this evaluation");
      TritonGpuPreparation g = prepare_triton_for_gpu(p, opt_, prep.build_dir, seed);
      r.add_stage(g.stage);
      shared_object = g.shim;
      triton_job = std::move(g.job);
      device_tensor_maps = std::move(g.device_tensor_maps);
      image_listing = std::move(g.image_listing);
      options.worker_readable.insert(options.worker_readable.end(), g.readable.begin(), g.readable.end());
    }
    if (r.stage("triton_gpu_build") && r.stage("triton_gpu_build")->status == StageStatus::failed) {
      skip_gpu_stages(r, "an earlier stage failed");
    } else {
      WorkerJob base = base_job(p, shared_object, seed, opt_.device);
      if (!triton_job.is_null()) base.triton = std::move(triton_job);
      GpuStageRun run{p, options, gpu_hello_, shared_object, prep.sass.get(), r, progress_, seed, std::move(base)};
      run.device_tensor_maps = std::move(device_tensor_maps);
      run.image_listing = std::move(image_listing);
      run_gpu_stages(run);
    }
  } else {
    skip_gpu_stages(r, skip_reason);
    if (static_ok) note("GPU stages skipped: " + skip_reason);
  }
  if (r.gpu.empty() && gpu_hello_.is_object()) r.gpu = gpu_hello_.value("gpu", "");
  if (prep.sass) record_sass_scan(*prep.sass, r);

  r.verdict = decide_verdict(r, &r.reason);
  if (r.verdict == Verdict::correct && !r.timing.empty()) {
    double log_sum = 0;
    int n = 0;
    for (const auto& t : r.timing)
      if (t.speedup > 0) log_sum += std::log(t.speedup), ++n;
    if (n) r.speedup_geomean = std::exp(log_sum / n);
  }
  record_provenance(r, opt_);
  std::error_code ec;
  fs::remove_all(prep.build_dir, ec);  // the record keeps what matters; builds are cheap to redo
  return r;
}

}  // namespace ptxbench

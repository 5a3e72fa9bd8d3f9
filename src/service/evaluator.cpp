#include "service/evaluator.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "compile/candidate_options.h"
#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "core/arch.h"
#include "core/bytes.h"
#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "probes/ncu_probe.h"
#include "probes/sanitizer_probe.h"
#include "sandbox/capabilities.h"
#include "service/candidate_files.h"
#include "service/pipeline/provenance.h"
#include "service/pipeline/sass_scan.h"
#include "service/pipeline/stage_results.h"
#include "service/pipeline/verdict_decision.h"
#include "service/pipeline/worker_events.h"
#include "service/pipeline/worker_jobs.h"
#include "service/pipeline/worker_runs.h"
#include "service/engine/baseline_cache.h"
#include "service/engine/timed_split.h"
#include "service/target_counts.h"
#include "service/worker_client.h"

namespace ptxbench {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// How much longer a call may take under compute-sanitizer (racecheck is the slowest) and ncu.
constexpr double kSanitizerSlowdown = 30, kProfilerSlowdown = 10;

}  // namespace

Evaluator::Evaluator(EvalOptions options, ProgressFn progress) : opt_(std::move(options)), progress_(std::move(progress)) {
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

PreparedCandidate Evaluator::prepare(const ProblemSpec& p, const fs::path& candidate) {
  const std::string source = read_file_bytes(candidate, "candidate");
  PreparedCandidate prep;
  EvaluationRecord& r = prep.record;
  r.problem = p.name;
  r.arch = opt_.arch;
  r.candidate_path = candidate.string();
  r.candidate_sha256 = content_sha256(source);
  r.created_at = utc_timestamp();
  const ArchTargets* targets = p.targets_for(opt_.arch);
  if (!targets) throw InputError("problem '" + p.name + "' defines no targets for arch " + opt_.arch);

  // Build, in the sandbox. On the include path: a private folder holding only the problem's
  // interface.h (not the problem folder: its spec lists the hidden shapes), the arch's knowledge
  // pack (ptx.cuh) and the user's -I folders. Readable for relative includes: the candidate's
  // folder (or only the file) and the read roots the caller trusts.
  note("build: nvcc for " + opt_.arch);
  const fs::path out_dir = opt_.workspace / "builds" / (r.candidate_sha256.substr(0, 16) + "-" + opt_.arch + "-" + std::to_string(getpid()) + "-" +
                                                   std::to_string(build_counter_++));
  BuildOptions bo;
  bo.arch = opt_.arch;
  bo.display_name = opt_.display_name;
  const fs::path include = out_dir / "include";
  fs::create_directories(include);
  if (fs::is_regular_file(p.interface_header())) fs::copy_file(p.interface_header(), include / "interface.h", fs::copy_options::overwrite_existing);
  bo.include_dirs.push_back(include);
  const fs::path knowledge = opt_.knowledge_root.empty() ? p.dir.parent_path().parent_path() / "knowledge" : opt_.knowledge_root;
  const fs::path pack = knowledge / std::string(arch_info(opt_.arch).pack);
  if (fs::is_directory(pack)) bo.include_dirs.push_back(pack);
  for (const auto& d : opt_.include_dirs) bo.include_dirs.push_back(d);
  bo.readable.push_back(opt_.candidate_folder_readable ? fs::absolute(candidate).parent_path() : fs::absolute(candidate));
  for (const auto& d : opt_.readable_roots) bo.readable.push_back(d);
  const CandidateOptions opted = parse_candidate_options(source);
  bo.extra_flags = opted.flags;
  BuildResult b;
  if (opted.error.empty()) {
    b = build_candidate(candidate, out_dir, bo);
  } else {
    b.diagnostics.push_back({bo.display_name.empty() ? candidate.filename().string() : bo.display_name, 1, 0, "error", opted.error});
    b.log = opted.error + "\n";
  }
  json diags = json::array();
  for (const auto& d : b.diagnostics)
    diags.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
  json build_detail = {{"command", b.command}, {"diagnostics", diags}, {"log", b.log}, {"candidate_options", opted.flags},
                       {"sandbox", b.sandbox}};
  r.environment["sandbox"] = {{"host", sandbox::host_capabilities().to_json()}, {"compile", b.sandbox}};
  if (!b.infra_error.empty()) {
    auto s = failed_stage("build", Verdict::infra_error, b.infra_error, build_detail);
    s.seconds = b.seconds;
    r.add_stage(s);
  } else if (!b.forbidden.empty()) {
    build_detail["forbidden"] = b.forbidden;
    auto s = failed_stage("build", Verdict::forbidden, first_reason(b.forbidden), build_detail);
    s.seconds = b.seconds;
    r.add_stage(s);
  } else if (!b.ok) {
    std::string first = b.timed_out ? "nvcc timed out" : "nvcc failed";
    for (const auto& d : b.diagnostics)
      if (d.severity == "error" || d.severity == "fatal") {
        first = (d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) + ": ") + d.message;
        break;
      }
    auto s = failed_stage("build", Verdict::compile_error, first, build_detail);
    s.seconds = b.seconds;
    r.add_stage(s);
  } else {
    r.add_stage({"build", StageStatus::ok, b.seconds, "built " + b.shared_object.filename().string(), build_detail});
  }

  // Static checks. The SASS scan (cuobjdump, about 1 s) decides no verdict, only target_static, so
  // it runs alongside the forbidden-code checks and the GPU stages and joins before the verdict.
  if (b.ok) {
    note("static: PTX, SASS and imports");
    auto t0 = std::chrono::steady_clock::now();
    json detail;
    std::vector<std::string> forbidden;
    detail["ptx_targets"] = b.ptx.empty() ? json::object() : json(scan_ptx(read_file(b.ptx), targets->ptx));
    if (auto cuobjdump = find_cuobjdump(); !cuobjdump.empty()) {
      prep.sass = start_sass_scan(b.shared_object, cuobjdump, *targets);
    } else {
      detail["sass_error"] = "cuobjdump not found (install PyPI nvidia-cuda-cuobjdump: scripts/setup.sh)";
    }
    for (auto& reason : scan_source(source)) forbidden.push_back(reason);
    try {
      ImportReport imp = check_imports(b.shared_object, p.entry);
      detail["needed"] = imp.needed;
      detail["undefined_symbols"] = imp.undefined.size();
      for (auto& reason : imp.forbidden) forbidden.push_back(reason);
    } catch (const Error& e) {
      forbidden.push_back(std::string("unreadable shared object: ") + e.what());
    }
    std::string syscall_note;
    for (auto& reason : scan_host_syscalls(b.shared_object, &syscall_note)) forbidden.push_back(reason);
    if (!syscall_note.empty()) detail["syscall_scan"] = syscall_note;
    detail["forbidden"] = forbidden;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!forbidden.empty()) {
      auto s = failed_stage("static", Verdict::forbidden, first_reason(forbidden), detail);
      s.seconds = secs;
      r.add_stage(s);
    } else {
      r.add_stage({"static", StageStatus::ok, secs, "no forbidden code", detail});
    }
  } else {
    r.add_stage(skipped_stage("static", "the build failed"));
  }

  prep.shared_object = b.ok ? b.shared_object : fs::path();
  prep.build_dir = out_dir;
  prep.ready_for_gpu = r.stage("static")->status == StageStatus::ok;
  return prep;
}

EvaluationRecord Evaluator::judge(const ProblemSpec& p, PreparedCandidate prep) {
  EvaluationRecord& r = prep.record;
  // GPU stages.
  const bool static_ok = prep.ready_for_gpu;
  std::string skip_reason;
  if (!static_ok) skip_reason = "an earlier stage failed";
  else if (!opt_.use_gpu) skip_reason = "--no-gpu: static checks only";
  else if (const auto& why = gpu_unavailable_reason(); !why.empty()) skip_reason = "no usable GPU (" + why + ")";
  else if (const std::string cc = gpu_hello_.value("cc", ""); cc != arch_info(opt_.arch).compute_capability)
    skip_reason = "the GPU (" + gpu_hello_.value("gpu", "?") + ", compute capability " + cc + ") cannot run " + opt_.arch +
                  " code: static checks only";
  if (skip_reason.empty()) {
    r.environment["gpu"] = gpu_hello_;
    run_gpu_stages(p, prep.shared_object, prep.sass.get(), r);
  } else {
    for (const char* s : {"sanitize", "stream_discipline", "correctness", "target_run", "timing"}) r.add_stage(skipped_stage(s, skip_reason));
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

namespace {

std::string first_finding(const std::string& report) {
  std::stringstream ss(report);
  for (std::string line; std::getline(ss, line);)
    if (line.find("Invalid") != std::string::npos || line.find("hazard") != std::string::npos ||
        line.find("rror") != std::string::npos)
      return line.substr(line.find_first_not_of("= "));
  return "";
}

// Executed targets from the counted calls, into the record: target_executed only when every
// counted shape executed every target group.
bool correct_stage_ran(const EvaluationRecord& r) {
  const auto* c = r.stage("correctness");
  return c && c->status != StageStatus::skipped;
}

StageResult apply_target_counts(const std::vector<json>& events, const SassListing& listing, const ProblemSpec& p,
                                EvaluationRecord& r, json detail) {
  const auto& groups = p.targets_for(r.arch)->groups;
  bool every_shape = !events.empty();
  double mma_flops = 0, problem_flops = 0;
  OpcodeCounts all;
  json shapes = json::array();
  for (const auto& ev : events) {
    ExecutedTargets t = executed_targets(ev, listing, groups);
    const bool satisfied = groups_satisfied(t.opcodes, groups);
    every_shape = every_shape && satisfied;
    mma_flops += t.warpgroup_mma_flops, problem_flops += t.problem_flops;
    for (const auto& [op, n] : t.opcodes) all[op] += n;
    shapes.push_back({{"shape", ev.at("shape")},
                      {"when", ev.value("when", "")},
                      {"targets_executed", satisfied},
                      {"executed_families", select_families(t.opcodes, groups)},
                      {"tensor_flop_share", t.problem_flops > 0 ? t.warpgroup_mma_flops / t.problem_flops : 0.0},
                      {"other_tensor_flop_share", t.problem_flops > 0 ? t.other_tensor_flops / t.problem_flops : 0.0},
                      {"unmatched_executions", t.unmatched},
                      {"check_passed", t.check_passed},
                      {"kernels", t.kernels}});
  }
  r.executed_families = select_families(all, groups);
  r.target_executed = every_shape;
  if (problem_flops > 0) r.tensor_flop_share = mma_flops / problem_flops;
  detail["shapes"] = shapes;
  detail["executed_families"] = r.executed_families;
  char share[64] = "";
  if (r.tensor_flop_share) std::snprintf(share, sizeof share, "; %.0f%% of the FLOPs on tensor instructions", *r.tensor_flop_share * 100);
  return {"target_run", StageStatus::ok, 0,
          std::string(every_shape ? "target families executed on every counted shape" : "target families did NOT execute") + share,
          detail};
}

}  // namespace

bool Evaluator::run_gpu_stages(const ProblemSpec& p, const fs::path& so, PreparedCandidate::SassScan* scan,
                               EvaluationRecord& r) {
  const uint64_t seed = job_seed(opt_.seed);
  const json base = base_job(p, so, seed, opt_.device);
  auto skip_rest = [&](const char* why) {
    for (const char* st : {"integrity", "stream_discipline", "correctness", "target_run", "timing"})
      if (!r.stage(st)) r.add_stage(skipped_stage(st, why));
  };

  // 1. A plain call first: a hang or crash is caught within the normal time limit, not the far
  //    longer one that kernels slowed down by a sanitizer need.
  if (opt_.sanitize) {
    note("smoke: one call on " + shape_to_string(p.sanitize_shape, p.dims));
    auto smoke = run_sharing_gpu(opt_.lane_gate, worker_launch(opt_, so, std::chrono::seconds(120)),
                                 single_call_job(base, p, p.sanitize_shape, false, 1.0, false));
    r.environment["sandbox"]["worker"] = smoke.sandbox;
    if (!smoke.done) {
      auto failure = abnormal_end("sanitize", smoke);
      failure.seconds = smoke.process.seconds;
      failure.message = "before the sanitizers, a plain call failed: " + failure.message;
      r.add_stage(failure);
      skip_rest("the candidate failed at run time");
      return false;
    }
  }

  // 2. The sanitizers: separate processes that time nothing, side by side.
  const auto sanitizer = opt_.sanitize ? find_compute_sanitizer() : fs::path();
  if (!opt_.sanitize) r.add_stage(skipped_stage("sanitize", "--no-sanitize"));
  else if (sanitizer.empty()) r.add_stage(skipped_stage("sanitize", "compute-sanitizer not found"));
  else {
    note("sanitize: memcheck, racecheck, synccheck on " + shape_to_string(p.sanitize_shape, p.dims));
    const json job = single_call_job(base, p, p.sanitize_shape, false, kSanitizerSlowdown, false);
    std::vector<std::pair<std::string, std::future<ToolRun>>> runs;
    for (const std::string check : {"memcheck", "racecheck", "synccheck"}) {
      auto wrapper = sanitizer_command_prefix(sanitizer, check);
      // Padding after every allocation: a write just past C lands in padding, not a neighbour.
      if (check == "memcheck") wrapper.insert(wrapper.end(), {"--padding", "4096"});
      runs.emplace_back(check, start_tool_run(opt_, so, wrapper, job));
    }
    json detail = json::object();
    double secs = 0;
    std::optional<StageResult> failure;
    for (auto& [check, fut] : runs) {
      ToolRun t = fut.get();
      secs = std::max(secs, t.run.process.seconds);
      auto findings = parse_sanitizer_output(t.log);
      detail[check] = {{"errors", findings.errors}, {"warnings", findings.warnings},
                       {"seconds", t.run.process.seconds}, {"report", findings.report}};
      if (failure) continue;
      if (findings.errors > 0) {
        const std::string first = first_finding(findings.report);
        failure = failed_stage("sanitize", Verdict::sanitizer_error,
                               check + ": " + std::to_string(findings.errors) + " error(s)" + (first.empty() ? "" : ": " + first));
      } else if (!t.run.done || t.run.tampered) {
        failure = abnormal_end("sanitize", t.run);
      } else if (!findings.summary_found) {
        failure = failed_stage("sanitize", Verdict::infra_error,
                               check + ": compute-sanitizer printed no summary (" + t.run.process.describe() + ")");
      }
    }
    if (failure) {
      failure->detail.update(detail);
      failure->seconds = secs;
      r.add_stage(*failure);
      skip_rest("the sanitizer stage failed");
      return false;
    }
    r.add_stage({"sanitize", StageStatus::ok, secs, "memcheck, racecheck and synccheck clean", detail});
  }

  // 3. One worker, alone on the GPU, with every kernel accounted for: the library alone, then the
  //    candidate loaded; stream discipline, correctness, counted calls, timing.
  const json job = eval_job(base, p, opt_, seed);
  note("correctness: " + std::to_string(job.at("correctness").size()) + " shapes x " + std::to_string(p.correctness_seeds) +
       " seeds, counted calls" + (opt_.timing ? ", then timing vs " + p.baseline : ""));
  // With a lane gate, the stages that time nothing run in a worker holding shared use of the GPU
  // and timing in a second one holding exclusive use (split_timed_job in engine/timed_split.h).
  const bool split = opt_.lane_gate && opt_.timing;
  auto run = run_sharing_gpu(opt_.lane_gate, worker_launch(opt_, so, std::chrono::seconds(900)), split ? shared_part_of(job) : job);
  r.environment["sandbox"]["worker"] = run.sandbox;
  if (run.tampered) {
    // Candidate code wrote to the result channel: nothing the worker reported can be trusted.
    r.add_stage(timed_by(abnormal_end("integrity", run), run));
    skip_rest("the worker's result channel was tampered with");
    return false;
  }
  std::optional<WorkerRun> timed_run;
  if (split && shared_part_passed(run)) {
    note("timing: exclusive use of GPU " + std::to_string(opt_.device) + " vs " + p.baseline);
    json timed_job = timed_part_of(job);
    const std::string cache_scope = p.name + "|" + gpu_hello_.value("gpu", "") + "|" + opt_.timing_config.dump();
    if (opt_.baseline_cache)
      timed_job["baseline_alone_cache"] = opt_.baseline_cache->lookup(cache_scope, opt_.device, job.at("timing"));
    auto use = opt_.lane_gate->exclusive_use();
    timed_run = run_worker(worker_launch(opt_, so, std::chrono::seconds(900)), timed_job);
    if (timed_run->tampered) {
      r.add_stage(timed_by(abnormal_end("integrity", *timed_run), *timed_run));
      skip_rest("the timed worker's result channel was tampered with");
      return false;
    }
    if (opt_.baseline_cache && timed_run->done)
      opt_.baseline_cache->store(cache_scope, opt_.device, timed_run->of_type("baseline_alone"));
  }
  const WorkerRun& timing_source = timed_run ? *timed_run : run;
  if (auto st = timing_source.of_type("gpu_state"); !st.empty()) r.environment["gpu_state_at_start"] = st.front();
  bool runtime_failed = false;

  // Integrity: what the GPU activity audit found (a violation decides the verdict).
  if (auto ev = timed_run ? timed_run->stage("integrity") : std::nullopt; ev && ev->value("status", "") != "ok")
    r.add_stage(timed_by(from_worker_stage(*ev), *timed_run));  // a violation while timing decides
  else if (auto ev = run.stage("integrity")) r.add_stage(timed_by(from_worker_stage(*ev), run));
  else if (!opt_.accounting) r.add_stage(skipped_stage("integrity", "--no-accounting: the GPU activity was not audited"));
  else r.add_stage(skipped_stage("integrity", run.done ? "the worker reported no GPU activity audit"
                                                       : "the worker ended before its GPU activity audit"));
  const bool violated = r.stage("integrity")->status == StageStatus::failed;

  // The worker runs stream discipline, correctness, counted calls and timing; it stops at the first failure.
  auto sd = run.stage("stream_discipline");
  if (sd) r.add_stage(from_worker_stage(*sd));
  else if (violated) r.add_stage(skipped_stage("stream_discipline", "the GPU activity audit failed"));
  else { r.add_stage(timed_by(abnormal_end("stream_discipline", run), run)); runtime_failed = true; }
  const bool disciplined = r.stage("stream_discipline")->status == StageStatus::ok;
  json checks = json::array();
  for (const auto& c : run.of_type("check")) checks.push_back(c);
  if (auto ev = run.stage("correctness")) {
    auto s = timed_by(from_worker_stage(*ev), run);
    s.detail["checks"] = checks;
    // The stage's status follows from its checks, not from the worker's word for it.
    const auto wrong = std::find_if(checks.begin(), checks.end(), [](const json& c) { return !c.value("passed", false); });
    if (s.status == StageStatus::ok && (checks.empty() || wrong != checks.end())) {
      s.status = StageStatus::failed;
      s.detail["verdict"] = checks.empty() ? "infra_error" : "incorrect";
      s.message = checks.empty() ? "the worker reported correctness without any check" : "a check failed: " + wrong->value("summary", "");
    }
    r.add_stage(s);
  } else if (disciplined && !runtime_failed && !violated) {
    auto s = timed_by(abnormal_end("correctness", run), run);
    s.detail["checks"] = checks;
    r.add_stage(s);
    runtime_failed = true;
  } else {
    r.add_stage(skipped_stage("correctness", runtime_failed ? "the candidate failed at run time"
                                             : violated    ? "the GPU activity audit failed"
                                                           : "stream discipline failed"));
  }
  const bool correct = r.stage("correctness")->status == StageStatus::ok;

  // Executed target instructions, counted in the worker on checked calls; when that tool fails,
  // ncu over a checked call; when that fails too, unknown (never charged to the candidate).
  auto counted = run.stage("target_run");
  if (!opt_.probe) r.add_stage(skipped_stage("target_run", "--no-probe"));
  else if (counted && !counted->value("tool_failure", false)) {
    auto s = from_worker_stage(*counted);
    if (s.status == StageStatus::ok || s.detail.value("verdict", "") == "incorrect") {
      // The counts are read through the SASS listing, which the static stage's scan produces.
      const SassListing& listing = finished_listing(scan);
      std::vector<json> counts = run.of_type("target_counts");
      if (timed_run)  // the secretly counted timed sample
        for (auto& c : timed_run->of_type("target_counts")) counts.push_back(std::move(c));
      StageResult applied = apply_target_counts(counts, listing, p, r, s.detail);
      if (s.status == StageStatus::failed) applied.status = StageStatus::failed, applied.message = s.message;
      r.add_stage(applied);
    } else {
      r.add_stage(s);
    }
  } else if (!counted && !run.done && correct_stage_ran(r) && !violated) {
    // The worker ended during its counted calls: the candidate's failure, at that stage.
    r.add_stage(timed_by(abnormal_end("target_run", run), run));
    runtime_failed = true;
  } else if (counted || (run.done && !violated && disciplined)) {
    const std::string why = counted ? counted->value("message", "") : "the worker did not count instructions";
    json detail = {{"in_process", why}};
    const auto ncu = find_ncu();
    if (ncu.empty()) {
      r.add_stage({"target_run", StageStatus::ok, 0, "executed targets unknown: " + why + "; ncu not found", detail});
    } else {
      note("target_run: in-process counting failed (" + why + "); ncu over a checked call on " +
           shape_to_string(p.probe_shape, p.dims));
      ToolRun t = start_tool_run(opt_, so, ncu_command_prefix(ncu), single_call_job(base, p, p.probe_shape, true, kProfilerSlowdown, true)).get();
      detail["method"] = "ncu";
      std::string unknown;
      if (!t.run.done) unknown = "ncu run ended early (" + t.run.process.describe() + ")";
      else if (auto sc = t.run.stage("single_call"); !sc || !sc->value("check_passed", false))
        unknown = "the call ncu counted was not correct under the profiler";
      if (unknown.empty()) {
        try {
          NcuReport rep = parse_ncu_csv(t.log);
          const auto& groups = p.targets_for(r.arch)->groups;
          r.executed_families = select_families(rep.total, groups);
          r.target_executed = groups_satisfied(rep.total, groups);
          json kernels = json::array();
          for (const auto& k : rep.kernels) kernels.push_back({{"name", k.name}, {"targets", select_families(k.opcodes, groups)}});
          detail["kernels"] = kernels;
          detail["executed_families"] = r.executed_families;
          r.add_stage(timed_by({"target_run", StageStatus::ok, 0,
                             std::string(*r.target_executed ? "target families executed" : "target families did NOT execute") +
                                 " (ncu, probe shape)", detail}, t.run));
        } catch (const Error& e) {
          unknown = std::string("ncu's report could not be read: ") + e.what();
        }
      }
      if (!unknown.empty()) {
        detail["ncu_log"] = t.log.substr(0, 4000);
        detail["ncu_process"] = t.run.process.describe();
        r.target_executed.reset();
        r.add_stage(timed_by({"target_run", StageStatus::ok, 0, "executed targets unknown: " + why + "; " + unknown, detail}, t.run));
      }
    }
  } else {
    r.add_stage(skipped_stage("target_run", runtime_failed ? "the candidate failed at run time"
                                            : violated    ? "the GPU activity audit failed"
                                                          : "stream discipline failed"));
  }

  // Timing (measured in step 3 when correct), with the library timed alone before the candidate loaded.
  for (const auto& t : timing_source.of_type("timing")) r.timing.push_back(to_shape_timing(t));
  if (auto ev = timing_source.stage("timing")) {
    auto s = from_worker_stage(*ev);
    // Recomputed from the raw figures: an impossible time or a failed timed check fails the stage.
    for (const auto& t : timing_source.of_type("timing")) {
      const double median = t.value("candidate", json::object()).value("median_ms", 0.0), floor = t.value("floor_ms", 0.0);
      bool check_failed = false;
      for (const auto& f : t.value("timed_check_failures", json::array())) check_failed = check_failed || f.value("side", "") == "candidate";
      if (s.status == StageStatus::ok && (median <= 0 || (floor > 0 && median < floor) || check_failed)) {
        s.status = StageStatus::failed;
        s.detail["verdict"] = check_failed ? "incorrect" : median <= 0 ? "infra_error" : "forbidden";
        s.message = check_failed ? "a timed call failed its check" : median <= 0 ? "the worker reported no time" : "a time below the hardware floor";
      }
    }
    if (timed_run) s.seconds = timed_run->process.seconds;
    json shapes = json::array();
    for (const auto& t : timing_source.of_type("timing")) { json x = t; x.erase("type"); shapes.push_back(x); }
    s.detail["shapes"] = shapes;
    json alone = json::array();
    for (const auto& b : timing_source.of_type("baseline_alone")) { json x = b; x.erase("type"); alone.push_back(x); }
    s.detail["baseline_alone"] = alone;
    if (timed_run) s.detail["exclusive_worker"] = true;
    r.add_stage(s);
  } else if (correct && opt_.timing && !violated && !runtime_failed && r.stage("target_run")->status != StageStatus::failed) {
    r.add_stage(abnormal_end("timing", timing_source));
  } else {
    r.add_stage(skipped_stage("timing", !opt_.timing ? "--no-timing" : violated ? "the GPU activity audit failed"
                                                                                : "the candidate is not correct"));
  }
  return true;
}

}  // namespace ptxbench

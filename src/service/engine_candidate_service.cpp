// The CandidateService over the engine in process: submits into the job queue, tickets wait for records.
#include "service/engine_candidate_service.h"

#include <unistd.h>

#include <fstream>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "judge/candidate_files.h"
#include "judge/gpu_description.h"
#include "judge/infra_fault.h"
#include "problems/registry.h"
#include "service/local_candidate_service.h"
#include "service/queue/queue_factory.h"
#include "service/remote_workers.h"

namespace ptxbench {
namespace fs = std::filesystem;

fs::path service_fault_log(const fs::path& workspace) { return workspace / "service" / "faults.jsonl"; }

void append_fault(const fs::path& workspace, const FaultRecord& f) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::error_code ec;
  fs::create_directories(service_fault_log(workspace).parent_path(), ec);
  std::ofstream(service_fault_log(workspace), std::ios::app) << f.to_json().dump() << "\n";
}

EngineCandidateService::EngineCandidateService(EngineServiceOptions options, ProgressFn progress)
    : options_(std::move(options)), progress_(std::move(progress)) {
  if (options_.eval.worker.empty()) options_.eval.worker = locate_worker();
  if (options_.eval.workspace.empty()) options_.eval.workspace = ".ptxbench";
  session_ = "eval-" + utc_timestamp_ms() + "-" + std::to_string(getpid());
  queue_ = open_job_queue({options_.queue, options_.eval.workspace / "ptxbench.db", options_.max_attempts});
  auto* redis = dynamic_cast<RedisJobQueue*>(queue_.get());
  if (options_.submit_only && !redis)
    throw InputError("--submit-only needs a queue that other hosts serve: --queue redis://HOST:PORT/...");
  std::string cursor;
  if (redis) {
    // A shared queue's jobs may end on any host: tickets resolve from its results stream.
    results_ =
        std::make_unique<RedisJobQueue>(redis->endpoint(), RedisQueueOptions{.max_attempts = options_.max_attempts});
    if (auto s = results_->finished_cursor(&cursor); !s.ok) throw InputError("the service's job queue: " + s.error);
  }
  if (options_.submit_only) gpu_ = remote_gpu_description(*redis);
  else start_engine();
  if (results_) follower_ = std::thread([this, cursor] { follow_results(cursor); });
}

void EngineCandidateService::start_engine() {
  gpu_ = describe_gpu_for(options_.eval);
  // Health probes only where a GPU answered: without one every candidate ends after its static stages.
  const fs::path probe_exe = locate_health_probe();
  if (gpu_.gpu_stages && fs::exists(probe_exe))
    probe_ =
        std::make_unique<ProcessHealthProbe>(probe_exe, options_.eval.workspace / "jobs", std::chrono::seconds(60));
  executor_ = std::make_unique<EvaluatorExecutor>(
      options_.eval,
      [this](const std::string& name) -> const ProblemSpec& {
        std::lock_guard lock(mu_);
        if (auto it = problems_.find(name); it != problems_.end()) return *it->second;
        // A job of an earlier session still in the queue: its problem from the same problems root.
        if (problems_root_.empty()) throw InfraFault("the service has no problem '" + name + "' loaded");
        auto& owned = owned_problems_[name];
        if (!owned) owned = std::make_unique<ProblemSpec>(ProblemRegistry(problems_root_).load(name));
        problems_[name] = owned.get();
        return *owned;
      },
      progress_, options_.cache_baselines);
  executor_->trust_source_folders(dynamic_cast<RedisJobQueue*>(queue_.get()) == nullptr);
  const fs::path workspace = options_.eval.workspace;
  engine_ = std::make_unique<ServiceEngine>(*queue_, *executor_, probe_.get(), options_.engine, options_.monitor,
                                            [workspace, ex = executor_.get()](const FaultRecord& f) {
                                              if (f.device >= 0) ex->gpu_fault(f.device);
                                              append_fault(workspace, f);
                                            });
  engine_->on_finished = [this](const std::string& id) { finished(id); };
  engine_->start();
}

void EngineCandidateService::follow_results(const std::string& from) {
  std::string cursor = from;
  while (!stopping_) {
    std::vector<std::string> ids;
    if (auto s = results_->read_finished(&cursor, std::chrono::milliseconds(500), &ids); !s.ok) {
      if (progress_) progress_("service: " + s.error);
      continue;
    }
    for (const auto& id : ids) finished(id);
  }
}

EngineCandidateService::~EngineCandidateService() {
  stopping_ = true;
  if (follower_.joinable()) follower_.join();
  if (engine_) engine_->stop();
  std::lock_guard lock(mu_);
  for (auto& [id, w] : waiting_)
    for (auto& p : w.promises)
      p->set_exception(std::make_exception_ptr(Error("the candidate service shut down before judging " + w.label)));
}

CandidateTicket EngineCandidateService::submit(CandidateJob job) {
  if (!job.problem) throw Error("CandidateService::submit: no problem given for " + job.label);
  auto promise = std::make_shared<std::promise<CandidateResult>>();
  CandidateTicket ticket(promise->get_future().share());
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = job.job_id.empty()
             ? session_ + "/" + std::to_string(submitted_) + "/" + content_sha256(job.source).substr(0, 16)
             : job.job_id;
    ++submitted_;
    problems_[job.problem->name] = job.problem;
    if (problems_root_.empty()) problems_root_ = job.problem->dir.parent_path();
    Waiter& w = waiting_[id];
    w.promises.push_back(promise);
    w.problem = job.problem;
    w.label = job.label;
  }
  bool inserted = false;
  if (auto s = queue_->enqueue(id, candidate_payload(job.problem->name, job.source, job.label, job.source_folder),
                               &inserted);
      !s.ok)
    throw Error("submitting " + job.label + ": " + s.error);
  if (!inserted) {
    // Already queued or finished (a resumed run): finished ones resolve now.
    std::optional<JobOutcome> o;
    if (queue_->outcome(id, &o).ok && o && (o->state == JobState::done || o->state == JobState::infra_error))
      finished(id);
  }
  if (engine_) engine_->notify_enqueued();
  return ticket;
}

CandidateResult EngineCandidateService::result_for(const JobOutcome& o, const Waiter& w) const {
  CandidateResult r;
  if (o.state == JobState::done) {
    r.record = record_from_json(o.result.at("record"));
    const auto& t = o.result.value("timings", json::object());
    r.timings.prepare_seconds = t.value("prepare_seconds", 0.0);
    r.timings.gpu_seconds = t.value("gpu_seconds", 0.0);
    r.reached_gpu_lane = o.result.value("device", -1) >= 0;
    return r;
  }
  // Never judged: the harness failed it every time. infra_error is never counted against a model.
  EvaluationRecord& rec = r.record;
  rec.problem = w.problem ? w.problem->name : "";
  rec.arch = options_.eval.arch;
  rec.created_at = utc_timestamp();
  rec.verdict = Verdict::infra_error;
  rec.reason = o.reason;
  json failures = o.failures;
  rec.add_stage({"service",
                 StageStatus::failed,
                 0,
                 o.reason,
                 {{"verdict", "infra_error"}, {"attempts", o.attempts}, {"failures", failures}}});
  return r;
}

void EngineCandidateService::finished(const std::string& id) {
  std::optional<JobOutcome> o;
  auto s = queue_->outcome(id, &o);
  std::lock_guard lock(mu_);
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return;
  if (s.ok && o && o->state != JobState::done && o->state != JobState::infra_error) return;  // re-queued
  for (auto& p : it->second.promises) {
    try {
      if (!s.ok) throw Error("reading the result of " + it->second.label + ": " + s.error);
      if (!o) throw Error("the job of " + it->second.label + " vanished from the queue");
      p->set_value(result_for(*o, it->second));
    } catch (...) {
      p->set_exception(std::current_exception());
    }
  }
  waiting_.erase(it);
  ++finished_;
}

ServiceLoad EngineCandidateService::load() const {
  QueueCounts c;
  queue_->counts(&c);
  std::lock_guard lock(mu_);
  ServiceLoad l;
  l.compile_queued = static_cast<int>(c.queued);
  l.judging = static_cast<int>(c.leased);
  l.finished = finished_;
  return l;
}

GpuDescription EngineCandidateService::describe_gpu() { return gpu_; }

json EngineCandidateService::snapshot() const {
  if (!engine_) return {{"submit_only", true}, {"queue", describe_queue({options_.queue})}};
  json s = engine_->snapshot();
  s["baseline_cache"] = {{"enabled", options_.cache_baselines}, {"hits", executor_->cache_hits()}};
  s["reference_pool"] = executor_->reference_pool_stats();
  s["reference_pool"]["enabled"] = options_.cache_baselines;
  return s;
}

}  // namespace ptxbench

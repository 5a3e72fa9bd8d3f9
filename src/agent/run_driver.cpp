// Runs or resumes one run: opens it in the store, seeds the judge cache, runs trajectories on threads.
#include "agent/run_driver.h"

#include <unistd.h>

#include <iostream>
#include <map>
#include <thread>

#include "agent/extractor.h"
#include "agent/feedback.h"
#include "agent/run_identity.h"
#include "agent/trajectory_runner.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "judge/toolchain_info.h"
#include "store/run_lock.h"

namespace ptxbench {

json run_provenance(const GpuDescription& gpu, const ModelClient& client) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return {{"harness", harness_info()},
          {"nvcc", nvcc_version()},
          {"gpu", {{"name", gpu.gpu}, {"gpu_stages", gpu.gpu_stages}, {"reason", gpu.reason}, {"hello", gpu.hello}}},
          {"feedback_version", kFeedbackVersion},
          {"extractor_version", kExtractorVersion},
          {"client", {{"provider", client.provider()}, {"model", client.model()}}},
          {"host", host},
          {"invoked_at", utc_timestamp_ms()}};
}

RunDriver::RunDriver(RunConfig config, std::vector<ProblemSpec> problems, ModelClient& client,
                     CandidateService& service, RunStore& store, RunDriverOptions options)
    : config_(std::move(config)),
      problems_(std::move(problems)),
      client_(client),
      service_(service),
      store_(store),
      options_(std::move(options)) {}

void RunDriver::request_stop(const std::string& reason, bool interrupt) {
  std::lock_guard lock(mutex_);
  if (context_) context_->stop("interrupted", reason, interrupt);
  else if (pending_stop_.empty()) pending_stop_ = reason, pending_interrupt_ = interrupt;
}

RunOutcome RunDriver::run() {
  RunOutcome outcome;
  outcome.gpu = service_.describe_gpu();

  // Prompts first: a missing knowledge file or a bad prompt.md fails before anything is stored.
  std::vector<ProblemPrompt> prompts;
  PromptOptions po;
  po.arch = config_.arch;
  po.language = *language_from_string(config_.language);
  po.components = parse_components(config_.knowledge);
  po.knowledge_root = options_.knowledge_root;
  for (const auto& p : problems_) prompts.push_back({&p, build_prompt_parts(p, po)});

  RunInfo wanted;
  wanted.id = run_id_for(config_);
  wanted.model = config_.model;
  wanted.arch = config_.arch;
  wanted.knowledge = config_.knowledge;
  wanted.problems = config_.problems;
  wanted.trajectories = config_.trajectories;
  wanted.turns = config_.turns;
  wanted.identity_sha256 = run_identity_sha256(config_);
  wanted.config = config_.to_json();
  wanted.config["identity"] = run_identity(config_);
  wanted.provenance = run_provenance(outcome.gpu, client_);
  // A resumed run keeps what earlier invocations ran on (the latest is the top level).
  if (RunInfo earlier; store_.get_run(wanted.id, &earlier).ok) {
    json history = earlier.provenance.value("earlier_invocations", json::array());
    json previous = earlier.provenance;
    previous.erase("earlier_invocations");
    history.push_back(previous);
    wanted.provenance["earlier_invocations"] = history;
  }
  RunLock lock(options_.workspace, wanted.id);
  if (!lock.held()) throw InputError(lock.error());
  RunInfo run;
  if (auto s = store_.open_run(wanted, &run, &outcome.created); !s.ok) {
    if (s.error.find("different configuration") != std::string::npos) throw InputError(s.error);
    throw Error("opening the run in the workspace database: " + s.error);
  }

  std::vector<TurnRow> stored;
  if (auto s = store_.load_turns(run.id, &stored); !s.ok) throw Error("reading the run's turns: " + s.error);
  std::map<std::pair<std::string, int>, std::vector<TurnRow>> by_trajectory;
  std::map<std::string, int> states;
  int done_turns = 0;
  for (auto& t : stored) {
    if (t.phase == "done") ++states[t.state], ++done_turns;
    by_trajectory[{t.problem, t.trajectory}].push_back(t);
  }

  std::ostream& err = options_.progress_stream ? *options_.progress_stream : std::cerr;
  const int total_trajectories = static_cast<int>(problems_.size()) * run.trajectories;
  RunProgress progress(run.id, total_trajectories, total_trajectories * run.turns, err, options_.interactive,
                       [this] { return service_.load(); });
  RunContext ctx(config_, run, client_, service_, store_, progress, options_.workspace);
  if (!config_.repair_notes.source.empty() && !options_.notes)
    throw InputError("the run config names repair notes (" + config_.repair_notes.source + ") but none were loaded");
  ctx.notes = options_.notes;

  // Earlier judgments of this run are reused for identical candidates (unless --rejudge).
  for (const auto& t : stored)
    if (t.phase == "done" && t.evaluation_id && t.candidate_sha256 && t.verdict && *t.verdict != "infra_error")
      ctx.cache.seed(t.problem, *t.candidate_sha256, {*t.evaluation_id, t.problem, t.trajectory, t.turn});

  std::vector<std::pair<const ProblemPrompt*, int>> todo;
  int complete = 0;
  for (const auto& pp : prompts)
    for (int i = 0; i < run.trajectories; ++i) {
      const auto& turns = by_trajectory[{pp.spec->name, i}];
      const bool finished =
          static_cast<int>(turns.size()) >= run.turns && (turns.empty() || turns.back().phase == "done");
      if (finished) ++complete;
      else todo.push_back({&pp, i});
    }
  progress.set_done(complete, done_turns, states);

  ctx.event(outcome.created ? "start" : "resume", std::string(outcome.created ? "started" : "resumed") + " by " +
                                                      harness_version() + " (" + harness_commit() +
                                                      "): " + std::to_string(todo.size()) + " trajectories to run, " +
                                                      std::to_string(done_turns) + " turns stored");
  progress.message(std::string(outcome.created ? "new run" : "resuming run") + ": " + config_.model + ", " +
                   config_.arch + ", " + std::to_string(problems_.size()) + " problem(s) x " +
                   std::to_string(run.trajectories) + " trajectories x " + std::to_string(run.turns) +
                   " turns, knowledge " + config_.knowledge +
                   (done_turns ? ", " + std::to_string(done_turns) + " turns already stored" : ""));
  if (!outcome.gpu.gpu_stages)
    progress.message(
        "NO GPU STAGE WILL RUN: " + outcome.gpu.reason +
        ". Candidates are built and statically checked only (verdicts compile_error, forbidden or not_run).");
  else progress.message("GPU: " + outcome.gpu.gpu);

  {
    std::lock_guard lock(mutex_);
    context_ = &ctx;
    if (!pending_stop_.empty()) ctx.stop("interrupted", pending_stop_, pending_interrupt_);
  }

  std::mutex todo_mutex;
  size_t next = 0;
  auto worker = [&] {
    for (;;) {
      std::pair<const ProblemPrompt*, int> task;
      {
        std::lock_guard lock(todo_mutex);
        if (next >= todo.size() || ctx.stopping()) return;
        task = todo[next++];
      }
      TrajectoryRunner(ctx, *task.first, task.second, by_trajectory[{task.first->spec->name, task.second}]).run();
    }
  };
  const size_t n_threads =
      config_.parallel > 0 ? std::min(todo.size(), static_cast<size_t>(config_.parallel)) : todo.size();
  std::atomic<bool> finished{false};
  std::thread ticker([&] {
    while (!finished.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      progress.redraw();
    }
  });
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n_threads; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  finished = true;
  ticker.join();
  {
    std::lock_guard lock(mutex_);
    context_ = nullptr;
  }
  progress.finish();

  std::vector<TrajectoryRow> trajectories;
  if (auto s = store_.load_trajectories(run.id, &trajectories); !s.ok)
    throw Error("reading the run's trajectories: " + s.error);
  bool all_complete = true;
  for (const auto& t : trajectories) {
    bool in_run = false;
    for (const auto& p : problems_) in_run = in_run || p.name == t.problem;
    if (in_run && t.trajectory < run.trajectories && t.status != "complete") all_complete = false;
  }
  outcome.new_turns = ctx.new_turns();
  outcome.store_failed = ctx.store_failures();
  if (ctx.stopping() && !all_complete) {
    outcome.status = "stopped";
    outcome.stop_kind = ctx.stop_kind();
    outcome.stop_reason = ctx.stop_reason();
  } else if (!all_complete) {
    outcome.status = "stopped";
    outcome.stop_kind = "incomplete";
    outcome.stop_reason = "some trajectories did not finish (see 'ptxbench runs show " + run.id + "')";
  } else {
    outcome.status = "complete";
  }
  if (auto s = store_.set_run_status(run.id, outcome.status, outcome.stop_reason); !s.ok)
    progress.message("could not store the run's status: " + s.error);
  ctx.event(outcome.status == "complete" ? "complete" : "stopped",
            outcome.status == "complete" ? "every trajectory finished" : outcome.stop_reason);
  if (auto s = store_.get_run(run.id, &outcome.run); !s.ok) outcome.run = run;
  return outcome;
}

}  // namespace ptxbench

// What every trajectory of a run shares: the config, the run row, the model client, the candidate
// service, the store, the judge cache, the progress line, and the run's stop state (the first
// reason wins; the error budget; --limit). Store failures stop the run and the unstored data is
// written to <workspace>/unstored/ so nothing is lost silently.
#pragma once
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "agent/clients/model_client.h"
#include "agent/judge_cache.h"
#include "agent/prompt_builder.h"
#include "agent/run_config.h"
#include "agent/run_progress.h"
#include "fixit_core/repair_notes.h"
#include "service/candidate_service.h"
#include "store/run_store.h"

namespace ptxbench {

struct ProblemPrompt {
  const ProblemSpec* spec = nullptr;
  PromptParts parts;
};

class RunContext {
 public:
  RunContext(RunConfig config, RunInfo run, ModelClient& client, CandidateService& service, RunStore& store,
             RunProgress& progress, std::filesystem::path workspace);

  const RunConfig config;
  const RunInfo run;
  ModelClient& client;
  CandidateService& service;
  RunStore& store;
  RunProgress& progress;
  JudgeCache cache;
  const std::optional<TokenPrices> prices;
  // Repair notes for failing turns' feedback (config.repair_notes); nullptr without.
  const fixit::RepairNotes* notes = nullptr;

  // No new model call once stopping; no new judging either once interrupted (a signal).
  bool stopping() const { return stopping_.load(); }
  bool interrupted() const { return interrupted_.load(); }
  void stop(const std::string& kind, const std::string& reason, bool interrupt = false);
  std::string stop_reason() const;
  std::string stop_kind() const;

  // --limit: claims one new counted turn; false (and the run stops) once the limit is reached.
  bool claim_turn();
  int new_turns() const { return claimed_.load(); }
  // Counts an infra error against --max-infra-errors; false (and the run stops) when it is spent.
  bool infra_error(const std::string& what, const std::string& problem, int trajectory, int turn);
  // Waits `seconds` unless the run stops first (then false).
  bool wait_unless_stopped(double seconds);

  void event(const std::string& kind, const std::string& message, const std::string& problem = "", int trajectory = -1,
             int turn = -1);
  // A DbStatus failure while storing: the run stops; `unstored` is written to a file that is named.
  void store_failed(const DbStatus& status, const std::string& what, const json& unstored);
  bool store_failures() const { return store_failures_.load() > 0; }

 private:
  std::filesystem::path workspace_;
  std::atomic<bool> stopping_{false}, interrupted_{false};
  std::atomic<int> claimed_{0}, infra_errors_{0}, store_failures_{0};
  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  std::string stop_reason_, stop_kind_;
};

}  // namespace ptxbench

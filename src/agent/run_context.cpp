// What a run's trajectories share: config, client, service, store, judge cache, progress and stop state.
#include "agent/run_context.h"

#include <unistd.h>

#include <fstream>

#include "core/timestamp.h"

namespace ptxbench {

RunContext::RunContext(RunConfig c, RunInfo r, ModelClient& cl, CandidateService& sv, RunStore& st, RunProgress& pr,
                       std::filesystem::path workspace)
    : config(std::move(c)),
      run(std::move(r)),
      client(cl),
      service(sv),
      store(st),
      progress(pr),
      prices(config.prices_for_model()),
      workspace_(std::move(workspace)) {}

void RunContext::stop(const std::string& kind, const std::string& reason, bool interrupt) {
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    if (stop_reason_.empty()) {
      stop_reason_ = reason;
      stop_kind_ = kind;
      first = true;
    }
    stopping_ = true;
    if (interrupt) interrupted_ = true;
  }
  stop_cv_.notify_all();
  if (first) {
    progress.message("stopping: " + reason);
    event("stop", kind + ": " + reason);
  }
}

std::string RunContext::stop_reason() const {
  std::lock_guard lock(mutex_);
  return stop_reason_;
}

std::string RunContext::stop_kind() const {
  std::lock_guard lock(mutex_);
  return stop_kind_;
}

bool RunContext::claim_turn() {
  if (stopping()) return false;
  const int n = claimed_.fetch_add(1);
  if (config.limit && n >= *config.limit) {
    claimed_.fetch_sub(1);
    stop("limit", "--limit " + std::to_string(*config.limit) + " reached: " + std::to_string(*config.limit) +
                      " new turns in this invocation (run the same command again to continue)");
    return false;
  }
  return true;
}

bool RunContext::infra_error(const std::string& what, const std::string& problem, int trajectory, int turn) {
  const int n = infra_errors_.fetch_add(1) + 1;
  event("infra_error", what, problem, trajectory, turn);
  if (n > config.max_infra_errors) {
    stop("infra_errors", std::to_string(n) + " infrastructure errors in this invocation exceed --max-infra-errors " +
                             std::to_string(config.max_infra_errors) + "; the last: " + what +
                             " (fix the cause and run the same command again to resume)");
    return false;
  }
  progress.retry("infrastructure error " + std::to_string(n) + "/" + std::to_string(config.max_infra_errors) + " (" +
                 what + "); retrying in " + std::to_string(static_cast<int>(config.infra_retry_delay_s)) + " s");
  return true;
}

bool RunContext::wait_unless_stopped(double seconds) {
  std::unique_lock lock(mutex_);
  stop_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stopping_.load(); });
  return !stopping_.load();
}

void RunContext::event(const std::string& kind, const std::string& message, const std::string& problem, int trajectory,
                       int turn) {
  if (auto s = store.add_event({0, run.id, utc_timestamp_ms(), kind, message, problem, trajectory, turn}); !s.ok)
    progress.message("could not store the event '" + kind + ": " + message + "': " + s.error);
}

void RunContext::store_failed(const DbStatus& status, const std::string& what, const json& unstored) {
  const int n = store_failures_.fetch_add(1);
  const auto dir = workspace_ / "unstored";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto file = dir / (run.id + "-" + std::to_string(getpid()) + "-" + std::to_string(n) + ".json");
  std::ofstream out(file);
  out << json{{"run", run.id}, {"what", what}, {"error", status.error}, {"data", unstored}}.dump(
             1, ' ', false, json::error_handler_t::replace)
      << "\n";
  const std::string saved =
      out ? "; the data is saved in " + file.string() : "; it could not be saved to " + file.string() + " either";
  stop("store_error", "could not store " + what + ": " + status.error + saved);
}

}  // namespace ptxbench

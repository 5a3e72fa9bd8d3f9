// The reward API without HTTP: durable submissions, long-polled status, results with the reward view, health.
#include "api/reward_api.h"

#include <chrono>

#include "api/reward_view.h"
#include "core/record.h"
#include "core/timestamp.h"
#include "problems/registry.h"
#include "service/engine/evaluator_executor.h"

namespace ptxbench::api {
namespace {

bool ended(JobState s) { return s == JobState::done || s == JobState::infra_error; }

// The API's names for the queue's states: a leased job is running.
const char* state_name(JobState s) { return s == JobState::leased ? "running" : to_string(s); }

json status_body(const std::string& key, const JobOutcome& o) {
  json j = {{"key", key}, {"state", state_name(o.state)}, {"finished", ended(o.state)}, {"attempts", o.attempts}};
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (ended(o.state)) j["result_url"] = "/v1/results/" + key;
  return j;
}

// A job the harness failed every time has no record: one is made that says so (as the engine's
// CandidateService does), so a trainer reads the same fields for it (counts: false).
EvaluationRecord infra_error_record(const JobOutcome& o, const json& payload, const std::string& arch) {
  EvaluationRecord r;
  r.problem = payload.value("problem", "");
  r.arch = arch;
  r.created_at = utc_timestamp();
  r.verdict = Verdict::infra_error;
  r.reason = o.reason;
  r.add_stage({"service",
               StageStatus::failed,
               0,
               o.reason,
               {{"verdict", "infra_error"}, {"attempts", o.attempts}, {"failures", o.failures}}});
  return r;
}

}  // namespace

ApiResponse error_response(int status, const std::string& message, const std::vector<FieldError>& errors,
                           int retry_after_seconds) {
  json list = json::array();
  for (const auto& e : errors) list.push_back(e.to_json());
  json err = {{"status", status}, {"message", message}};
  if (!list.empty()) err["errors"] = list;
  if (retry_after_seconds > 0) err["retry_after_seconds"] = retry_after_seconds;
  return {status, {{"error", err}}, retry_after_seconds};
}

RewardApi::RewardApi(JobQueue& queue, ServerFacts server, std::filesystem::path problems_root, RewardApiOptions options,
                     std::function<void()> notify_enqueued)
    : queue_(queue),
      server_(std::move(server)),
      problems_root_(std::move(problems_root)),
      options_(options),
      notify_enqueued_(std::move(notify_enqueued)) {}

ApiResponse RewardApi::unreachable(const std::string& what, const QueueStatus& s) const {
  // The queue (SQLite busy past its timeout, Redis down past its retries) failed: nothing was
  // acknowledged that is not stored, so the client may send the same keys again.
  return error_response(503, what + ": " + s.error, {}, options_.admission.retry_after_seconds);
}

ApiResponse RewardApi::submit(const std::string& body) {
  if (draining_)
    return error_response(503, "the server is draining (stopping): nothing new is taken", {},
                          options_.admission.draining_retry_after_seconds);
  ParsedSubmissions parsed = parse_submissions(body, server_, options_.limits);
  if (!parsed.errors.empty()) return error_response(400, "the submission is invalid", parsed.errors);

  // Keys already known: the same candidate again is a retry (answered, not queued twice); a
  // different one under a known key is the client's error, and nothing of the request is queued.
  std::vector<bool> known(parsed.candidates.size(), false);
  std::vector<FieldError> conflicts;
  for (size_t i = 0; i < parsed.candidates.size(); ++i) {
    const Submission& s = parsed.candidates[i];
    std::optional<json> existing;
    if (auto st = queue_.payload(job_id_for_key(s.key), &existing); !st.ok)
      return unreachable("reading key '" + s.key + "'", st);
    if (!existing) continue;
    known[i] = true;
    const std::string stored = existing->is_object() ? existing->value("/api/fingerprint"_json_pointer, "") : "";
    if (stored != s.fingerprint)
      conflicts.push_back({parsed.batch ? "candidates[" + std::to_string(i) + "].key" : "key",
                           "'" + s.key + "' was submitted before with a different candidate"});
  }
  if (!conflicts.empty())
    return error_response(409, "an idempotency key was reused for a different candidate", conflicts);

  long long fresh = 0;
  for (bool k : known) fresh += k ? 0 : 1;
  if (fresh > 0) {
    QueueCounts counts;
    if (auto st = queue_.counts(&counts); !st.ok) return unreachable("reading the queue's depth", st);
    const Admission a = admit(counts, fresh, draining_, options_.admission);
    if (!a.admitted()) return error_response(a.http_status, a.reason, {}, a.retry_after_seconds);
  }

  json answers = json::array();
  for (size_t i = 0; i < parsed.candidates.size(); ++i) {
    const Submission& s = parsed.candidates[i];
    const std::string id = job_id_for_key(s.key);
    bool inserted = false;
    if (!known[i]) {
      json payload = candidate_payload(s.problem, s.source, id);
      payload["api"] = {{"key", s.key},
                        {"fingerprint", s.fingerprint},
                        {"metadata", s.metadata},
                        {"submitted_at", utc_timestamp_ms()}};
      // Stored (committed) before it is acknowledged: a restart after this loses nothing.
      if (auto st = queue_.enqueue(id, payload, &inserted); !st.ok)
        return unreachable("queueing key '" + s.key + "' (keys before it in the request are queued)", st);
    }
    answers.push_back({{"key", s.key},
                       {"duplicate", !inserted},
                       {"status_url", "/v1/submissions/" + s.key},
                       {"result_url", "/v1/results/" + s.key}});
  }
  if (fresh > 0 && notify_enqueued_) notify_enqueued_();
  return {202, {{"submissions", answers}}};
}

ApiResponse RewardApi::status(const std::string& key, double wait_seconds) {
  if (!valid_key(key, options_.limits.max_key_length))
    return error_response(400, "invalid key",
                          {{"key", "must be 1 to " + std::to_string(options_.limits.max_key_length) +
                                       " characters of A-Z a-z 0-9 . _ : -"}});
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         std::min(std::max(wait_seconds, 0.0), options_.max_wait_seconds)));
  for (;;) {
    long long seen;
    {
      std::lock_guard lock(finished_mu_);
      seen = finished_count_;
    }
    std::optional<JobOutcome> o;
    if (auto st = queue_.outcome(job_id_for_key(key), &o); !st.ok) return unreachable("reading key '" + key + "'", st);
    if (!o) return error_response(404, "no submission has the key '" + key + "'");
    if (ended(o->state) || draining_ || Clock::now() >= deadline) return {200, status_body(key, *o)};
    // Woken when any job ends here; a job that ends on another host (a shared Redis queue) is
    // seen by the next poll.
    std::unique_lock lock(finished_mu_);
    finished_cv_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(250)),
                            [&] { return finished_count_ != seen || draining_; });
  }
}

ApiResponse RewardApi::result(const std::string& key) {
  if (!valid_key(key, options_.limits.max_key_length))
    return error_response(400, "invalid key", {{"key", "not a valid key"}});
  const std::string id = job_id_for_key(key);
  std::optional<JobOutcome> o;
  if (auto st = queue_.outcome(id, &o); !st.ok) return unreachable("reading key '" + key + "'", st);
  if (!o) return error_response(404, "no submission has the key '" + key + "'");
  if (!ended(o->state)) {
    json body = status_body(key, *o);
    body["message"] = "not judged yet: long-poll /v1/submissions/" + key + "?wait=SECONDS";
    return {202, body, 1};
  }
  std::optional<json> payload;
  if (auto st = queue_.payload(id, &payload); !st.ok) return unreachable("reading key '" + key + "'", st);
  const json p = payload && payload->is_object() ? *payload : json::object();
  EvaluationRecord record;
  json timings = nullptr;
  if (o->state == JobState::done) {
    try {
      record = record_from_json(o->result.at("record"));
    } catch (const std::exception& e) {
      return error_response(500, "the stored result of '" + key + "' is not an evaluation record: " + e.what());
    }
    timings = o->result.value("timings", json(nullptr));
  } else {
    record = infra_error_record(*o, p, server_.arch);
  }
  json body = status_body(key, *o);
  body["reward"] = reward_view(record, problem(record.problem), timings);
  body["metadata"] = p.value("/api/metadata"_json_pointer, json::object());
  body["submitted_at"] = p.value("/api/submitted_at"_json_pointer, "");
  body["record"] = to_json(record);
  return {200, body};
}

ApiResponse RewardApi::health() {
  QueueCounts c;
  if (auto st = queue_.counts(&c); !st.ok) return unreachable("reading the queue", st);
  json body = {{"status", draining_ ? "draining" : "ok"},
               {"arch", server_.arch},
               {"language", server_.language},
               {"problems", server_.problems},
               {"queue",
                {{"queued", c.queued},
                 {"running", c.leased},
                 {"done", c.done},
                 {"infra_error", c.infra_error},
                 {"max_depth", options_.admission.max_queue_depth}}},
               {"limits",
                {{"max_batch", options_.limits.max_batch},
                 {"max_source_bytes", options_.limits.max_source_bytes},
                 {"max_wait_seconds", options_.max_wait_seconds}}}};
  if (draining_) return {503, body, options_.admission.draining_retry_after_seconds};
  return {200, body};
}

void RewardApi::job_finished(const std::string&) {
  {
    std::lock_guard lock(finished_mu_);
    ++finished_count_;
  }
  finished_cv_.notify_all();
}

void RewardApi::set_draining(bool on) {
  draining_ = on;
  finished_cv_.notify_all();
}

const ProblemSpec* RewardApi::problem(const std::string& name) {
  if (!server_.problems.count(name)) return nullptr;
  std::lock_guard lock(problems_mu_);
  auto& p = problems_[name];
  if (!p) {
    try {
      p = std::make_unique<ProblemSpec>(ProblemRegistry(problems_root_).load(name));
    } catch (const std::exception&) {
      return nullptr;  // the feedback then speaks generically; the record itself is complete
    }
  }
  return p.get();
}

}  // namespace ptxbench::api

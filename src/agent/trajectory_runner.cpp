// One trajectory turn by turn: request, reply, extracted candidate, judgment, feedback, each turn stored twice.
#include "agent/trajectory_runner.h"

#include <chrono>

#include "agent/extractor.h"
#include "agent/feedback.h"
#include "agent/turn_pricing.h"
#include "core/content_hash.h"
#include "core/timestamp.h"

namespace ptxbench {
namespace {

std::string label(const std::string& problem, int trajectory, int turn) {
  return problem + "/" + std::to_string(trajectory) + "/" + std::to_string(turn);
}

json request_json(const ChatRequest& r, const ContextPlan& plan) {
  json messages = json::array();
  for (const auto& m : r.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  return {{"system_sha256", content_sha256(r.system)},
          {"messages", messages},
          {"options", r.options},
          {"context", plan.record}};
}

ModelCallRow call_row(const RunContext& ctx, const ChatRequest& req, const ChatReply& reply, const ContextPlan& plan,
                      int attempt, const std::string& started_at) {
  ModelCallRow c;
  c.run_id = ctx.run.id;
  c.problem = req.at.problem;
  c.trajectory = req.at.trajectory;
  c.turn = req.at.turn;
  c.attempt = attempt;
  c.started_at = started_at;
  c.seconds = reply.seconds;
  c.outcome = std::string(to_string(reply.outcome));
  c.finish_reason = reply.finish_reason;
  c.model = reply.model;
  c.http_status = reply.http_status;
  c.attempts = reply.attempts;
  c.error = reply.error;
  c.retries = reply.retries;
  c.input_tokens = reply.usage.input_tokens;
  c.output_tokens = reply.usage.output_tokens;
  c.reasoning_tokens = reply.usage.reasoning_tokens;
  c.request = request_json(req, plan);
  // Clients without a wire (replay, files) send no bytes: the canonical request is what was "sent".
  c.request_is_canonical = reply.request_body.empty();
  c.request_bytes =
      c.request_is_canonical
          ? json{{"system", req.system}, {"messages", c.request["messages"]}, {"options", req.options}}.dump(
                -1, ' ', false, json::error_handler_t::replace)
          : reply.request_body;
  c.system_text = req.system;
  c.response_bytes = reply.response_body;
  c.content = reply.content;
  c.reasoning = reply.reasoning;
  return c;
}

json call_json(const ModelCallRow& c) {
  return {{"problem", c.problem}, {"trajectory", c.trajectory}, {"turn", c.turn},  {"outcome", c.outcome},
          {"content", c.content}, {"reasoning", c.reasoning},   {"error", c.error}};
}

std::optional<bool> target_correct_of(const EvaluationRecord& r) {
  if (r.verdict == Verdict::not_run || r.verdict == Verdict::infra_error) return std::nullopt;
  if (r.verdict != Verdict::correct) return false;
  return r.target_executed;  // unknown stays unknown
}

}  // namespace

TrajectoryRunner::TrajectoryRunner(RunContext& ctx, const ProblemPrompt& problem, int trajectory,
                                   std::vector<TurnRow> stored)
    : ctx_(ctx), problem_(problem), trajectory_(trajectory), stored_(std::move(stored)) {}

void TrajectoryRunner::remember(const TurnRow& t, std::string reply) {
  history_.push_back({t.turn, std::move(reply), t.feedback, t.state, t.target_executed, t.speedup_geomean});
}

bool TrajectoryRunner::restore_history() {
  for (auto& t : stored_) {
    if (t.phase == "judging") {
      // The reply is stored but was never judged (the run was killed or stopped): judge it now,
      // without calling the model.
      std::string source;
      if (!t.candidate_sha256) {
        ctx_.store_failed(
            DbStatus::failure("turn " + label(t.problem, t.trajectory, t.turn) + " is judging but has no candidate"),
            "a resumed turn", json::object());
        return false;
      }
      if (auto s = ctx_.store.candidate_source(*t.candidate_sha256, &source); !s.ok) {
        ctx_.store_failed(s, "reading the candidate of turn " + label(t.problem, t.trajectory, t.turn), json::object());
        return false;
      }
      ctx_.event("resume_judging", "judging the stored reply of turn " + label(t.problem, t.trajectory, t.turn),
                 t.problem, t.trajectory, t.turn);
      if (!judge_and_finish(t, source)) return false;
    }
    std::string reply;
    if (auto s = ctx_.store.load_reply_content(t.model_call_id, &reply); !s.ok) {
      ctx_.store_failed(s, "reading the reply of turn " + label(t.problem, t.trajectory, t.turn), json::object());
      return false;
    }
    remember(t, std::move(reply));
  }
  return true;
}

void TrajectoryRunner::run() {
  if (!restore_history()) return;
  for (int turn = static_cast<int>(stored_.size()); turn < ctx_.run.turns; ++turn) {
    if (ctx_.stopping() || !ctx_.claim_turn()) return;
    if (!next_turn(turn)) return;
  }
}

std::optional<ChatReply> TrajectoryRunner::counted_reply(int turn, const ContextPlan& plan, ModelCallRow* call) {
  const std::string& problem = problem_.spec->name;
  int attempt = 0;
  if (auto s = ctx_.store.count_model_calls(ctx_.run.id, problem, trajectory_, turn, &attempt); !s.ok) {
    ctx_.store_failed(s, "counting the model calls of " + label(problem, trajectory_, turn), json::object());
    return std::nullopt;
  }
  ChatRequest req;
  req.at = {ctx_.run.id, problem, trajectory_, turn};
  req.system = problem_.parts.system;
  req.messages = plan.messages;
  req.options = ctx_.config.model_args;
  // A claimed turn makes its call even when the run started stopping meanwhile (no new turn is
  // claimed then); only a signal, or a stop while retrying, ends it before the call.
  for (bool retry = false;; ++attempt, retry = true) {
    if (ctx_.interrupted() || (retry && ctx_.stopping())) return std::nullopt;
    const std::string started = utc_timestamp_ms();
    const auto t0 = std::chrono::steady_clock::now();
    ChatReply reply;
    try {
      reply = ctx_.client.complete(
          req, [&](const std::string& line) { ctx_.progress.retry(label(problem, trajectory_, turn) + ": " + line); });
    } catch (const std::exception& e) {
      // A client that throws breaks its contract (outcomes are values): stop the run, saying so.
      reply.outcome = ProviderOutcome::infra_error;
      reply.error = std::string("the model client failed: ") + e.what();
      reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ModelCallRow failed = call_row(ctx_, req, reply, plan, attempt, started);
      if (auto s = ctx_.store.record_model_call(failed); !s.ok)
        ctx_.store_failed(s, "a failed model call", call_json(failed));
      ctx_.stop("client_error", label(problem, trajectory_, turn) + ": " + reply.error);
      return std::nullopt;
    }
    if (reply.seconds <= 0)
      reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    *call = call_row(ctx_, req, reply, plan, attempt, started);
    if (reply.outcome != ProviderOutcome::infra_error && reply.outcome != ProviderOutcome::quota_exhausted)
      return reply;
    if (auto s = ctx_.store.record_model_call(*call); !s.ok) {
      ctx_.store_failed(s, "a model call", call_json(*call));
      return std::nullopt;
    }
    if (reply.outcome == ProviderOutcome::quota_exhausted) {
      ctx_.stop("quota", "the provider says the quota is exhausted (" + reply.error +
                             "); nothing is lost: run the same command again to resume");
      return std::nullopt;
    }
    if (!ctx_.infra_error("model call for " + label(problem, trajectory_, turn) + ": " + reply.error, problem,
                          trajectory_, turn))
      return std::nullopt;
    if (!ctx_.wait_unless_stopped(ctx_.config.infra_retry_delay_s)) return std::nullopt;
  }
}

bool TrajectoryRunner::next_turn(int turn) {
  const ProblemSpec& spec = *problem_.spec;
  const ContextPlan plan = build_context(problem_.parts.problem, history_, ContextPolicy{ctx_.config.context_turns});
  ModelCallRow call;
  auto reply = counted_reply(turn, plan, &call);
  if (!reply) return false;

  TurnRow t;
  t.run_id = ctx_.run.id;
  t.problem = spec.name;
  t.trajectory = trajectory_;
  t.turn = turn;
  t.provider_outcome = call.outcome;
  t.input_tokens = reply->usage.input_tokens;
  t.output_tokens = reply->usage.output_tokens;
  t.reasoning_tokens = reply->usage.reasoning_tokens;
  t.cached_input_tokens = reply->usage.cached_input_tokens;
  t.reasoning_chars = static_cast<long long>(reply->reasoning.size());
  t.cost_usd = call_cost_usd(ctx_.prices, t.input_tokens, t.output_tokens);
  t.model_seconds = reply->seconds;
  t.context = plan.record;
  t.started_at = call.started_at;
  t.replied_at = utc_timestamp_ms();
  t.feedback_version = kFeedbackVersion;

  const bool answered = reply->outcome == ProviderOutcome::ok || reply->outcome == ProviderOutcome::truncated;
  ExtractedCode code;
  if (answered) {
    code = extract_code(reply->content, spec.entry, *language_from_string(ctx_.config.language));
    t.extraction = code.to_json();
  } else {
    t.extraction = {
        {"version", kExtractorVersion}, {"found", false}, {"rule", "no answer to extract from (" + call.outcome + ")"}};
  }
  const FeedbackContext fctx{&spec, turn,         ctx_.run.turns,
                             false, std::nullopt, *language_from_string(ctx_.config.language)};
  if (code.found) {
    t.phase = "judging";
    t.state = "pending";
  } else {
    t.phase = "done";
    t.state = answered ? "no_code" : call.outcome;
    t.feedback = render_no_kernel_feedback(t.state, call.outcome, reply->error, t.extraction.value("rule", ""), fctx);
    t.finished_at = t.replied_at;
  }
  if (auto s = ctx_.store.store_reply(call, t, code.found ? &code.code : nullptr); !s.ok) {
    ctx_.store_failed(s, "the reply of turn " + label(spec.name, trajectory_, turn), call_json(call));
    return false;
  }
  if (code.found) {
    if (!judge_and_finish(t, code.code)) return false;
  } else {
    ctx_.progress.turn_done(t.state, turn + 1 >= ctx_.run.turns);
  }
  remember(t, reply->content);
  return true;
}

void TrajectoryRunner::add_repair_notes(TurnRow& t, const EvaluationRecord& record, const ProblemSpec& spec,
                                        const std::string& source) const {
  if (!ctx_.notes) return;
  const auto query = fixit::notes_query(record, &spec, source);
  if (!query) return;  // no failure: no note applies
  const RepairNotesConfig& c = ctx_.config.repair_notes;
  fixit::NotesOptions o{c.k, c.with_fixed_kernel, c.same_problem, {}};
  for (const auto& [problem, split] : ctx_.config.splits)
    if (split != "train") o.held_out.insert(problem);
  const fixit::Retrieval got = ctx_.notes->retrieve(*query, o);
  t.feedback += fixit::render_notes(got, o);
  t.context["repair_notes"] = got.to_json(o);
  t.context["repair_notes"]["query"] = query->text();
}

bool TrajectoryRunner::judge_and_finish(TurnRow& t, const std::string& source) {
  const ProblemSpec& spec = *problem_.spec;
  const std::string sha = content_sha256(source);
  bool owner = false;
  std::optional<JudgedCandidate> reuse;
  if (!ctx_.config.rejudge) reuse = ctx_.cache.acquire(spec.name, sha, &owner);
  auto give_up = [&] {
    if (owner) ctx_.cache.abandon(spec.name, sha);
    return false;  // the turn stays "judging": a resumed run judges it
  };
  EvaluationRecord record;
  bool new_record = false;
  if (reuse) {
    if (auto s = ctx_.store.evaluation(reuse->evaluation_id, &record); !s.ok) {
      ctx_.store_failed(s, "reading the reused evaluation " + std::to_string(reuse->evaluation_id), json::object());
      return false;
    }
    t.evaluation_id = reuse->evaluation_id;
    t.reused_evaluation = true;
  } else {
    for (;;) {
      if (ctx_.interrupted()) return give_up();
      CandidateResult result;
      try {
        result = ctx_.service.submit({&spec, source, label(spec.name, t.trajectory, t.turn)}).wait();
      } catch (const std::exception& e) {
        if (!ctx_.infra_error("judging " + label(spec.name, t.trajectory, t.turn) + ": " + e.what(), spec.name,
                              t.trajectory, t.turn) ||
            !ctx_.wait_unless_stopped(ctx_.config.infra_retry_delay_s))
          return give_up();
        continue;
      }
      if (result.record.verdict == Verdict::infra_error) {
        // Kept for the record (never a turn's verdict), then retried within the error budget.
        long long id = 0;
        if (auto s = ctx_.store.evaluations().insert(result.record, &id); !s.ok)
          ctx_.progress.message("could not store an infra_error evaluation: " + s.error);
        if (!ctx_.infra_error("evaluation " + std::to_string(id) + " of " + label(spec.name, t.trajectory, t.turn) +
                                  " ended in infra_error: " + result.record.reason,
                              spec.name, t.trajectory, t.turn) ||
            !ctx_.wait_unless_stopped(ctx_.config.infra_retry_delay_s))
          return give_up();
        continue;
      }
      record = std::move(result.record);
      t.compile_wait_seconds = result.timings.compile_wait_seconds;
      t.prepare_seconds = result.timings.prepare_seconds;
      t.gpu_wait_seconds = result.timings.gpu_wait_seconds;
      t.gpu_seconds = result.timings.gpu_seconds;
      if (const auto* b = record.stage("build")) t.build_seconds = b->seconds;
      new_record = true;
      break;
    }
  }
  t.verdict = std::string(to_string(record.verdict));
  t.state = *t.verdict;
  t.target_static = record.target_static;
  t.target_executed = record.target_executed;
  t.target_correct = target_correct_of(record);
  t.speedup_geomean = record.speedup_geomean;
  FeedbackContext fctx{
      &spec, t.turn, ctx_.run.turns, t.reused_evaluation, std::nullopt, *language_from_string(ctx_.config.language)};
  if (reuse && reuse->trajectory == t.trajectory && reuse->problem == t.problem) fctx.reused_from_turn = reuse->turn;
  t.feedback = render_feedback(record, fctx);
  t.feedback_version = kFeedbackVersion;
  add_repair_notes(t, record, spec, source);
  t.finished_at = utc_timestamp_ms();
  if (auto s = ctx_.store.finish_turn(t, new_record ? &record : nullptr); !s.ok) {
    ctx_.store_failed(
        s, "the judgment of turn " + label(spec.name, t.trajectory, t.turn),
        {{"turn", label(spec.name, t.trajectory, t.turn)}, {"record", to_json(record)}, {"feedback", t.feedback}});
    return give_up();
  }
  if (owner) ctx_.cache.publish(spec.name, sha, {*t.evaluation_id, t.problem, t.trajectory, t.turn});
  ctx_.progress.turn_done(t.state, t.turn + 1 >= ctx_.run.turns);
  return true;
}

}  // namespace ptxbench

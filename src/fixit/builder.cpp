// `ptxbench fixit build`: from the runs' turns to judged Fixit records, resumable, teacher calls stored first.
#include "fixit/builder.h"

#include <chrono>
#include <thread>

#include "agent/extractor.h"
#include "agent/feedback.h"
#include "agent/prompt_builder.h"
#include "agent/turn_pricing.h"
#include "core/build_info.h"
#include "core/content_hash.h"
#include "core/error.h"
#include "core/record.h"
#include "core/timestamp.h"
#include "fixit/build_progress.h"
#include "fixit/fix_rule.h"
#include "fixit_core/record_format.h"
#include "fixit/teacher_prompt.h"

namespace ptxbench::fixit {
namespace {

std::string str(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The system text the model saw: as sent when the source kept it, else rebuilt from the knowledge
// pack (and whether the rebuild matches the sha256 the request recorded).
std::pair<std::string, std::string> system_of(const SourceTurn& t, const ProblemSpec* spec,
                                              const std::filesystem::path& knowledge) {
  if (!t.system.empty()) return {t.system, "as_sent"};
  if (!spec || knowledge.empty()) return {"", "none"};
  try {
    PromptOptions po;
    po.arch = t.arch;
    po.components = parse_components(t.knowledge.empty() ? "all" : t.knowledge);
    po.knowledge_root = knowledge;
    const std::string text = build_prompt_parts(*spec, po).system;
    const std::string sent = str(t.request, "system_sha256");
    return {text, sent.empty() || sent == content_sha256(text) ? "rebuilt" : "rebuilt_differs"};
  } catch (const InputError&) {
    return {"", "none"};
  }
}

std::pair<std::string, std::string> problem_prompt_of(const SourceTurn& t, const ProblemSpec* spec,
                                                      const std::filesystem::path& knowledge) {
  if (t.request.contains("messages") && t.request["messages"].is_array() && !t.request["messages"].empty())
    if (auto p = str(t.request["messages"][0], "content"); !p.empty()) return {p, "as_sent"};
  if (!spec || knowledge.empty()) return {"", "none"};
  PromptOptions po;
  po.arch = t.arch;
  po.components = {};
  po.knowledge_root = knowledge;
  return {build_prompt_parts(*spec, po).problem, "rebuilt"};
}

json turn_json(const SourceTurn& t) {
  return {{"address", t.address()},
          {"trajectory", t.trajectory},
          {"turn", t.turn},
          {"candidate", t.candidate},
          {"candidate_sha256", t.candidate_sha256},
          {"reply", t.reply}};
}

struct Judgment {
  bool settled = false;  // a verdict on the kernel (not infra_error, not not_run)
  std::string unsettled_why;
  EvaluationRecord record;
};

}  // namespace

std::string build_identity(const Recipe& recipe, const TeacherSetup& teacher, const std::vector<SourceTurn>& turns) {
  std::string s = recipe.sha256 + "|" + teacher.spec + "|" + teacher.args.dump() + "|";
  std::vector<std::string> keys;
  for (const auto& t : turns) keys.push_back(t.address() + ":" + t.candidate_sha256 + ":" + t.state);
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) s += k + ";";
  return content_sha256(s);
}

json BuildOutcome::to_json() const {
  return {{"build", build_id},
          {"created", created},
          {"status", status},
          {"stop_reason", stop_reason},
          {"gpu", {{"gpu_stages", gpu.gpu_stages}, {"gpu", gpu.gpu}, {"reason", gpu.reason}}},
          {"turns_read", turns_read},
          {"items", items},
          {"reasons", reasons},
          {"records", records},
          {"records_in_dataset", records_in_dataset},
          {"new_records", new_records},
          {"teacher_calls", teacher_calls},
          {"teacher_cost_usd", teacher_cost_usd},
          {"infra_errors", infra_errors},
          {"seconds", seconds},
          {"seconds_per_new_record", new_records ? json(seconds / static_cast<double>(new_records)) : json(nullptr)}};
}

struct Builder::Impl {
  FixitStore& store;
  CandidateService& service;
  const Recipe& recipe;
  const SuiteSplits& suite;
  std::map<std::string, const ProblemSpec*> problems;
  TeacherSetup teacher;
  BuildOptions options;
  std::ostream& log;
  std::string build_id;
  std::unique_ptr<BuildProgress> progress;
  std::atomic<bool> stopping{false};
  std::mutex stop_mutex;
  std::string stop_reason;
  std::atomic<long long> infra_errors{0}, teacher_calls{0}, new_records{0};
  std::mutex cost_mutex;
  double cost = 0;
  std::vector<std::string> store_errors;

  Impl(FixitStore& s, CandidateService& c, const Recipe& r, const SuiteSplits& su,
       std::map<std::string, const ProblemSpec*> p, TeacherSetup t, BuildOptions o, std::ostream& l)
      : store(s),
        service(c),
        recipe(r),
        suite(su),
        problems(std::move(p)),
        teacher(std::move(t)),
        options(std::move(o)),
        log(l) {}

  void stop(const std::string& why) {
    std::lock_guard lock(stop_mutex);
    if (!stopping.exchange(true)) stop_reason = why;
  }

  void check(const DbStatus& s, const std::string& what) {
    if (s.ok) return;
    stop("the workspace database failed (" + what + "): " + s.error);
    throw Error("storing " + what + ": " + s.error);
  }

  void count_infra(const std::string& what) {
    const long long n = ++infra_errors;
    progress->message("infra error (" + std::to_string(n) + " of at most " + std::to_string(options.max_infra_errors) +
                      "): " + what);
    if (n >= options.max_infra_errors)
      stop(std::to_string(n) + " infra errors in this invocation (--max-infra-errors " +
           std::to_string(options.max_infra_errors) + "); run the same command again to go on");
  }

  Judgment judge(const FixitItemRow& item, const std::string& source, const std::string& label) {
    Judgment j;
    const ProblemSpec* spec = problems.at(item.problem);
    CandidateJob job{spec, source, label, "", {}};
    try {
      CandidateResult result = service.submit(job).wait();
      j.record = std::move(result.record);
    } catch (const std::exception& e) {
      j.unsettled_why = std::string("the harness failed while judging: ") + e.what();
      count_infra(j.unsettled_why);
      return j;
    }
    if (j.record.verdict == Verdict::infra_error) {
      j.unsettled_why = "infra_error while judging: " + j.record.reason;
      count_infra(j.unsettled_why);
      return j;
    }
    if (j.record.verdict == Verdict::not_run) {
      j.unsettled_why = "not judged: no GPU stage ran (" + j.record.reason + "); run the build again on a GPU host";
      return j;
    }
    j.settled = true;
    return j;
  }

  std::string feedback_for(const FixitItemRow& item, const EvaluationRecord& r) {
    FeedbackContext fc;
    fc.problem = problems.at(item.problem);
    return render_feedback(r, fc);
  }

  FixTarget fix_target(const FixitItemRow& item) {
    FixTarget t;
    t.error_class = item.error_class;
    if (item.error.contains(record_key::speedup_geomean) && item.error[record_key::speedup_geomean].is_number())
      t.failing_speedup = item.error[record_key::speedup_geomean].get<double>();
    return t;
  }

  TeacherContext teacher_context(const FixitItemRow& item) {
    return {str(item.context, "system"), str(item.context, "problem_prompt"), str(item.context, "failed_reply"),
            str(item.context, "feedback"), item.error_class};
  }

  // One teacher call, recorded as an attempt (before anything is judged). Returns the stored row.
  FixitAttemptRow ask_teacher(const FixitItemRow& item, ChatRequest request, const std::string& kind, int attempt,
                              int teacher_index, const std::string& prompt_version) {
    // The address a files: or replay: teacher answers by: trajectory = the item's ordinal in its
    // problem, turn = the teacher attempt (0, 1, ...), or 100 for the explanation of a verified fix.
    request.at = {"fixit/" + build_id, item.problem, item.ordinal, kind == "teacher" ? teacher_index : 100};
    request.options = teacher.args;
    const std::string started = utc_timestamp_ms();
    ChatReply reply;
    try {
      reply =
          teacher.client->complete(request, [this](const std::string& line) { progress->message("teacher: " + line); });
    } catch (const std::exception& e) {
      reply.outcome = ProviderOutcome::provider_error;
      reply.error = std::string("the teacher client failed: ") + e.what();
    }
    ++teacher_calls;
    FixitAttemptRow a;
    a.build_id = build_id;
    a.item_key = item.item_key;
    a.attempt = attempt;
    a.kind = kind;
    a.teacher_index = teacher_index;
    a.prompt_version = prompt_version;
    a.model = reply.model.empty() ? teacher.spec : reply.model;
    a.outcome = std::string(to_string(reply.outcome));
    a.finish_reason = reply.finish_reason;
    a.error = reply.error;
    a.http_status = reply.http_status;
    a.seconds = reply.seconds;
    a.input_tokens = reply.usage.input_tokens;
    a.output_tokens = reply.usage.output_tokens;
    a.reasoning_tokens = reply.usage.reasoning_tokens;
    a.cost_usd = call_cost_usd(teacher.prices, reply.usage.input_tokens, reply.usage.output_tokens);
    json messages = json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    a.request = {{"system_sha256", content_sha256(request.system)},
                 {"messages", messages},
                 {"options", request.options},
                 {"address",
                  {{"run", request.at.run},
                   {"problem", request.at.problem},
                   {"trajectory", request.at.trajectory},
                   {"turn", request.at.turn}}},
                 {"started_at", started}};
    a.request_bytes = reply.request_body.empty()
                          ? json{{"system", request.system}, {"messages", messages}, {"options", request.options}}.dump(
                                -1, ' ', false, json::error_handler_t::replace)
                          : reply.request_body;
    a.response_bytes = reply.response_body;
    a.system_text = request.system;
    a.content = reply.content;
    a.reasoning = reply.reasoning;
    {
      std::lock_guard lock(cost_mutex);
      cost += a.cost_usd.value_or(0);
    }
    progress->teacher_call(a.cost_usd.value_or(0));
    return a;
  }

  struct Explained {
    std::string text, source;
  };

  // The explanation of a verified kernel: the prose of the reply that holds it, else the teacher's
  // (one fixit-explain/1 call per item; an infra error leaves it for the next invocation).
  // nullopt with *pending set: try again later; nullopt without: there is none.
  std::optional<Explained> explanation(const FixitItemRow& item, const std::string& prose,
                                       const std::string& prose_source, const std::string& kernel,
                                       const std::string& kernel_feedback, std::vector<FixitAttemptRow>& attempts,
                                       std::string* pending, std::string* none_why) {
    if (prose.size() >= recipe.fix.min_explanation_chars) return Explained{prose, prose_source};
    for (const auto& a : attempts)
      if (a.kind == "explain" && a.phase == "done" && a.outcome != "infra_error") {
        if (a.explanation.size() >= recipe.fix.min_explanation_chars)
          return Explained{a.explanation, "teacher_explain"};
        *none_why = "the teacher's explanation was too short or missing (" + a.why + ")";
        return std::nullopt;
      }
    if (!teacher.client) {
      *none_why = "the fixing reply explains nothing (" + std::to_string(prose.size()) +
                  " characters of prose) and no teacher is set";
      return std::nullopt;
    }
    if (stopping) {
      *pending = "stopped before the teacher explained the fix";
      return std::nullopt;
    }
    const int attempt = static_cast<int>(attempts.size());
    FixitAttemptRow a = ask_teacher(item, explain_request(teacher_context(item), kernel, kernel_feedback), "explain",
                                    attempt, -1, kExplainPromptVersion);
    a.phase = "done";
    if (a.outcome == "infra_error" || a.outcome == "quota_exhausted") {
      a.why = a.outcome + ": " + a.error;
      check(store.insert_attempt(a), "a teacher explanation");
      attempts.push_back(a);
      if (a.outcome == "quota_exhausted") stop("the teacher's quota is exhausted: " + a.error);
      else count_infra("teacher: " + a.error);
      *pending = "the teacher could not be reached for an explanation: " + a.error;
      return std::nullopt;
    }
    if (a.outcome == "ok" || a.outcome == "truncated") {
      a.explanation = extract_code(a.content, "").prose;  // code in an explanation is ignored
      if (a.explanation.empty()) a.explanation = a.content;
      if (a.explanation.size() < recipe.fix.min_explanation_chars)
        a.why = "too short: " + std::to_string(a.explanation.size()) + " characters";
    } else {
      a.why = "teacher reply: " + a.outcome + (a.error.empty() ? "" : ": " + a.error);
    }
    check(store.insert_attempt(a), "a teacher explanation");
    attempts.push_back(a);
    if (a.why.empty()) return Explained{a.explanation, "teacher_explain"};
    *none_why = "the teacher gave no usable explanation (" + a.why + ")";
    return std::nullopt;
  }

  // The teacher's calls over the item (none: the record's provenance.teacher stays null).
  void set_teacher_totals(const std::vector<FixitAttemptRow>& attempts, FixitRecord* r) {
    long long calls = 0, in = 0, out = 0;
    double c = 0;
    std::string version;
    for (const auto& a : attempts) {
      if (a.kind == "trajectory") continue;
      ++calls;
      in += a.input_tokens.value_or(0);
      out += a.output_tokens.value_or(0);
      c += a.cost_usd.value_or(0);
      if (a.kind == "teacher" || version.empty()) version = a.prompt_version;
    }
    if (!calls) return;
    r->teacher_model = teacher.spec, r->teacher_prompt_version = version, r->teacher_calls = calls;
    r->teacher_cost_usd = c, r->teacher_input_tokens = in, r->teacher_output_tokens = out;
  }

  void make_record(const FixitItemRow& item, const std::string& fix_source, const json& fix_turn,
                   const std::string& kernel, const Explained& ex, const FixitAttemptRow& fix_attempt,
                   const EvaluationRecord& fix_record, const std::vector<FixitAttemptRow>& attempts) {
    const json& c = item.context;
    int teacher_attempts = 0;
    for (const auto& a : attempts) teacher_attempts += a.kind == "teacher" && a.outcome != "infra_error";
    FixitRecord r;
    r.id = build_id + "/" + item.item_key;
    r.key = item.item_key;
    r.build = build_id;
    r.recipe_name = recipe.name, r.recipe_sha256 = recipe.sha256;
    r.template_kind = item.template_kind, r.problem = item.problem, r.split = item.split;
    r.arch = str(item.source, "arch");
    if (item.template_kind == "fixit")
      r.error_class = item.error_class, r.error_signature = item.signature, r.error_detail = item.error;
    r.system = str(c, "system"), r.system_source = str(c, "system_source");
    r.problem_prompt = str(c, "problem_prompt"), r.failed_reply = str(c, "failed_reply");
    r.failing_kernel = str(c, "failing_kernel"), r.feedback = str(c, "feedback");
    r.feedback_version = str(c, "feedback_version");
    r.explanation = ex.text, r.explanation_source = ex.source, r.kernel = kernel;
    r.message = target_message(ex.text, kernel);
    r.fix_source = fix_source, r.fix_turn = fix_turn, r.teacher_attempts = teacher_attempts;
    r.fix_attempt = fix_attempt.attempt, r.fix_evaluation_id = fix_attempt.evaluation_id;
    r.fix_verdict = std::string(to_string(fix_record.verdict));
    r.fix_target_executed = fix_record.target_executed, r.fix_tensor_flop_share = fix_record.tensor_flop_share;
    r.fix_speedup_geomean = fix_record.speedup_geomean, r.fix_gpu = fix_record.gpu, r.fix_harness = harness_info();
    r.source = str(item.source, "source"), r.run = str(item.source, "run"), r.model = str(item.source, "model");
    r.trajectory = item.source.value("trajectory", 0), r.turn = item.source.value("turn", 0);
    r.candidate_sha256 = str(item.source, "candidate_sha256");
    r.run_harness = item.source.value("run_harness", json(nullptr));
    r.run_gpu = item.source.value("run_gpu", json(nullptr));
    set_teacher_totals(attempts, &r);
    const json record = fixit_record_json(r);
    check(store.store_record(build_id, item.item_key, record, fix_source), "record " + item.item_key);
    ++new_records;
  }

  void settle(const FixitItemRow& item, const std::string& status, const std::string& reason) {
    check(store.set_item_status(build_id, item.item_key, status, reason, ""), "item " + item.item_key);
  }

  // Judges a stored attempt that holds a kernel and is not judged yet. False: unsettled (pending).
  bool judge_attempt(const FixitItemRow& item, FixitAttemptRow& a, EvaluationRecord* out, std::string* pending) {
    Judgment j = judge(item, a.candidate, item.problem + " fixit " + item.item_key + "/" + std::to_string(a.attempt));
    if (!j.settled) {
      *pending = j.unsettled_why;
      return false;
    }
    a.verdict = std::string(to_string(j.record.verdict));
    a.why = why_not_a_fix(j.record, fix_target(item), recipe.fix);
    a.accepted = a.why.empty();
    a.feedback = feedback_for(item, j.record);
    a.phase = "judged";
    check(store.judge_attempt(a, &j.record), "the judgment of " + item.item_key);
    *out = std::move(j.record);
    return true;
  }

  // The outcome of one item: "record", "dropped" or "pending".
  std::string process(const FixitItemRow& item) {
    std::vector<FixitAttemptRow> attempts;
    check(store.load_attempts(build_id, item.item_key, &attempts), "attempts of " + item.item_key);
    const ProblemSpec* spec = problems.at(item.problem);
    std::string pending;
    auto leave_pending = [&](const std::string& why) {
      settle(item, "pending", why);
      return std::string("pending");
    };
    auto drop = [&](const std::string& why) {
      settle(item, "dropped", why);
      return std::string("dropped");
    };
    const bool kernelgen = item.template_kind == "kernelgen";

    // 1. A kernel the runs already hold: the turn itself (kernelgen) or a later turn of its trajectory.
    std::vector<json> verified;
    if (kernelgen) verified.push_back(item.source.value("self", json::object()));
    else if (recipe.fix.prefer_trajectory)
      for (const auto& l : item.source.value("later", json::array())) verified.push_back(l);
    std::string last_why;
    for (const json& turn : verified) {
      const std::string address = str(turn, "address");
      FixitAttemptRow* a = nullptr;
      for (auto& x : attempts)
        if (x.kind == "trajectory" && x.source_turn == address) a = &x;
      if (!a) {
        if (stopping) return leave_pending("stopped before judging " + address);
        FixitAttemptRow row;
        row.build_id = build_id;
        row.item_key = item.item_key;
        row.attempt = static_cast<int>(attempts.size());
        row.kind = "trajectory";
        row.phase = "replied";
        row.source_turn = address;
        row.model = str(item.source, "model");
        row.outcome = "ok";
        row.candidate = str(turn, "candidate");
        row.content = str(turn, "reply");
        check(store.insert_attempt(row), "a trajectory fix of " + item.item_key);
        attempts.push_back(row);
        a = &attempts.back();
      }
      EvaluationRecord fix_record;
      if (a->phase == "replied") {
        if (stopping) return leave_pending("stopped before judging " + address);
        if (!judge_attempt(item, *a, &fix_record, &pending)) return leave_pending(pending);
      } else if (a->evaluation_id) {
        check(store.evaluation(*a->evaluation_id, &fix_record), "an evaluation");
      }
      if (!a->accepted) {
        last_why = address + " judged again: " + a->why;
        continue;
      }
      const ExtractedCode code = extract_code(a->content, spec->entry);
      std::string none_why;
      const FixitAttemptRow fix = *a;  // `attempts` may grow (an explanation call)
      auto ex = explanation(item, code.prose, kernelgen ? "source_turn" : "fixing_turn", fix.candidate, fix.feedback,
                            attempts, &pending, &none_why);
      if (!ex && !pending.empty()) return leave_pending(pending);
      if (!ex && recipe.fix.require_explanation) return drop("no explanation: " + none_why);
      make_record(item, "trajectory", json{{"address", address}, {"turn", turn.value("turn", 0)}}, fix.candidate,
                  ex.value_or(Explained{"", "none"}), fix, fix_record, attempts);
      return "record";
    }
    if (kernelgen) return drop("the kernel is no longer a correct one when judged again: " + last_why);

    // 2. The teacher.
    if (!teacher.client)
      return drop(std::string("no fix: ") + (verified.empty() ? "no later turn of its trajectory fixed it" : last_why) +
                  ", and no teacher is set");
    const TeacherContext ctx = teacher_context(item);
    std::vector<FixAttemptMemory> memories;
    int counted = 0;
    for (auto& a : attempts) {
      if (a.kind != "teacher" || a.outcome == "infra_error" || a.outcome == "quota_exhausted") continue;
      ++counted;
      EvaluationRecord fix_record;
      if (a.phase == "replied") {
        if (stopping) return leave_pending("stopped before judging a stored teacher fix");
        if (!judge_attempt(item, a, &fix_record, &pending)) return leave_pending(pending);
      } else if (a.accepted && a.evaluation_id) {
        check(store.evaluation(*a.evaluation_id, &fix_record), "an evaluation");
      }
      if (a.accepted) return finish_teacher_fix(item, a, fix_record, attempts);
      memories.push_back({a.content, a.feedback.empty() ? a.why : a.feedback});
      last_why = a.why;
    }
    while (counted < recipe.fix.attempts) {
      if (stopping) return leave_pending("stopped before the teacher's attempt " + std::to_string(counted + 1));
      FixitAttemptRow a = ask_teacher(item, fix_request(ctx, memories), "teacher", static_cast<int>(attempts.size()),
                                      counted, kTeacherPromptVersion);
      if (a.outcome == "infra_error" || a.outcome == "quota_exhausted") {
        a.phase = "done";
        a.why = a.outcome + ": " + a.error;
        check(store.insert_attempt(a), "a teacher call");
        attempts.push_back(a);
        if (a.outcome == "quota_exhausted") stop("the teacher's quota is exhausted: " + a.error);
        else count_infra("teacher: " + a.error);
        return leave_pending("the teacher could not be reached: " + a.error);
      }
      ++counted;
      if (a.outcome != "ok" && a.outcome != "truncated") {
        a.phase = "done";
        a.why = "the teacher's reply is not usable: " + a.outcome + (a.error.empty() ? "" : " (" + a.error + ")");
        check(store.insert_attempt(a), "a teacher call");
        attempts.push_back(a);
        memories.push_back({a.content, "Your reply was not usable (" + a.outcome +
                                           "). Reply with an explanation and the complete file."});
        last_why = a.why;
        continue;
      }
      const TeacherAnswer answer = read_fix_reply(a.content, spec->entry);
      a.explanation = answer.explanation;
      if (!answer.has_code) {
        a.phase = "done";
        a.why = "malformed: " + answer.why_malformed;
        check(store.insert_attempt(a), "a teacher call");
        attempts.push_back(a);
        memories.push_back(
            {a.content, "Your reply held no code block. Give the complete corrected file in one ```cuda block."});
        last_why = a.why;
        continue;
      }
      a.candidate = answer.kernel;
      a.phase = "replied";  // stored before it is judged: a kill from here on repeats no teacher call
      check(store.insert_attempt(a), "a teacher fix");
      attempts.push_back(a);
      FixitAttemptRow& stored = attempts.back();
      EvaluationRecord fix_record;
      if (!judge_attempt(item, stored, &fix_record, &pending)) return leave_pending(pending);
      if (stored.accepted) return finish_teacher_fix(item, stored, fix_record, attempts);
      memories.push_back({stored.content, stored.feedback});
      last_why = stored.why;
    }
    return drop("teacher: " + std::to_string(counted) + " attempt(s), none fixed it; the last: " + last_why);
  }

  std::string finish_teacher_fix(const FixitItemRow& item, const FixitAttemptRow& fix,
                                 const EvaluationRecord& fix_record, std::vector<FixitAttemptRow>& attempts) {
    std::string pending, none_why;
    const FixitAttemptRow copy = fix;
    auto ex = explanation(item, copy.explanation, "teacher_fix", copy.candidate, copy.feedback, attempts, &pending,
                          &none_why);
    if (!ex && !pending.empty()) {
      settle(item, "pending", pending);
      return "pending";
    }
    if (!ex && recipe.fix.require_explanation) {
      settle(item, "dropped", "no explanation: " + none_why);
      return "dropped";
    }
    make_record(item, "teacher", nullptr, copy.candidate, ex.value_or(Explained{"", "none"}), copy, fix_record,
                attempts);
    return "record";
  }

  std::vector<FixitItemRow> item_rows(const Selection& sel) {
    std::vector<FixitItemRow> rows;
    std::map<std::string, int> ordinal;
    for (const Item& it : sel.items) {
      const SourceTurn& t = *it.turn;
      auto spec_it = problems.find(t.problem);
      const ProblemSpec* spec = spec_it == problems.end() ? nullptr : spec_it->second;
      FixitItemRow r;
      r.build_id = build_id;
      r.item_key = it.key;
      r.ordinal = ordinal[it.problem]++;
      r.problem = it.problem;
      r.split = it.split;
      r.template_kind = std::string(to_string(it.template_kind));
      r.error_class = it.error ? it.error->name : "";
      r.signature = it.error ? it.error->signature : "";
      r.status = it.status == "selected" ? "pending" : it.status;
      r.reason = it.reason;
      r.kernel_hash = it.kernel_hash;
      r.error = it.error ? it.error->detail : json::object();
      if (it.error && it.error->name == "correct_slow" && t.evaluation && t.evaluation->speedup_geomean)
        r.error[record_key::speedup_geomean] = *t.evaluation->speedup_geomean;
      json later = json::array();
      for (const SourceTurn* l : it.later) later.push_back(turn_json(*l));
      r.source = {{"source", t.source},
                  {"run", t.run},
                  {"model", t.model},
                  {"arch", t.arch},
                  {"knowledge", t.knowledge},
                  {"trajectory", t.trajectory},
                  {"turn", t.turn},
                  {"candidate_sha256", t.candidate_sha256},
                  {"state", t.state},
                  {"run_harness", t.provenance.value("harness", json(nullptr))},
                  {"run_gpu", t.provenance.value("gpu", json(nullptr))},
                  {"later", later},
                  {"self", turn_json(t)}};
      if (r.status == "pending" || r.status == "record") {
        const auto [system, system_source] = system_of(t, spec, options.knowledge_root);
        const auto [prompt, prompt_source] = problem_prompt_of(t, spec, options.knowledge_root);
        const bool kernelgen = it.template_kind == Template::kernelgen;
        r.context = {{"system", system},
                     {"system_source", system_source},
                     {"problem_prompt", prompt},
                     {"problem_prompt_source", prompt_source},
                     {"failed_reply", kernelgen ? "" : t.reply},
                     {"failing_kernel", kernelgen ? "" : t.candidate},
                     {"feedback", kernelgen ? "" : t.feedback},
                     {"feedback_version", kernelgen ? "" : t.feedback_version}};
      }
      rows.push_back(std::move(r));
    }
    return rows;
  }

  void post_balance() {
    std::vector<FixitRecordRow> records;
    check(store.load_records(build_id, &records), "records");
    std::vector<BalanceEntry> entries;
    for (const auto& r : records) {
      const json& e = r.record.value("error", json(nullptr));
      entries.push_back({r.record.value("problem", ""), e.is_object() ? e.value("class", "") : "kernelgen",
                         e.is_object() ? e.value("signature", "") : r.item_key});
    }
    const auto cut = balance_cut(entries, recipe, "capped (post-balance)");
    for (size_t i = 0; i < records.size(); ++i)
      if (records[i].in_dataset != cut[i].empty() || records[i].excluded_reason != cut[i])
        check(store.set_record_inclusion(build_id, records[i].item_key, cut[i].empty(), cut[i]),
              "record " + records[i].item_key);
  }
};

Builder::Builder(FixitStore& store, CandidateService& service, const Recipe& recipe, const SuiteSplits& suite,
                 std::map<std::string, const ProblemSpec*> problems, TeacherSetup teacher, BuildOptions options,
                 std::ostream& log)
    : impl_(std::make_unique<Impl>(store, service, recipe, suite, std::move(problems), std::move(teacher),
                                   std::move(options), log)) {}
Builder::~Builder() = default;

void Builder::request_stop(const std::string& why) { impl_->stop(why); }

BuildOutcome Builder::run(const std::vector<SourceTurn>& turns) {
  Impl& m = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  BuildOutcome out;
  out.turns_read = static_cast<long long>(turns.size());
  const std::string identity = build_identity(m.recipe, m.teacher, turns);
  m.build_id = m.options.build_name.empty() ? m.recipe.name + "-" + identity.substr(0, 12) : m.options.build_name;
  out.build_id = m.build_id;

  FixitBuildRow wanted;
  wanted.id = m.build_id;
  wanted.recipe_name = m.recipe.name;
  wanted.recipe_sha256 = m.recipe.sha256;
  wanted.recipe_text = m.recipe.text;
  wanted.template_kind = std::string(to_string(m.recipe.template_kind));
  wanted.teacher = m.teacher.spec;
  json sources = json::array();
  for (const auto& s : m.options.sources) sources.push_back(s);
  wanted.config = {{"recipe", m.recipe.to_json()},
                   {"identity_sha256", identity},
                   {"sources", sources},
                   {"turns_read", out.turns_read},
                   {"teacher",
                    {{"spec", m.teacher.spec},
                     {"args", m.teacher.args},
                     {"prompt_versions", {kTeacherPromptVersion, kExplainPromptVersion}}}},
                   {"suite", {{"name", m.suite.name}, {"splits", m.suite.splits}}},
                   {"harness", harness_info()}};
  // Selecting is cheap and has no effect until a new build stores it; a resumed build keeps its own.
  const Selection sel = select_items(turns, m.recipe, m.suite, m.problems);
  json not_items = json::object();
  for (const auto& [k, v] : sel.not_items) not_items[k] = v;
  wanted.config["not_items"] = not_items;
  FixitBuildRow actual;
  bool created = false;
  m.check(m.store.open_build(wanted, &actual, &created), "build " + m.build_id);
  out.created = created;
  if (actual.config.value("identity_sha256", identity) != identity)
    throw InputError("Fixit build '" + m.build_id +
                     "' already exists for other sources, recipe or teacher; pick another --build-name");
  if (created) m.check(m.store.insert_items(m.item_rows(sel)), "the items of " + m.build_id);
  std::vector<FixitItemRow> items;
  m.check(m.store.load_items(m.build_id, &items), "the items of " + m.build_id);
  std::vector<const FixitItemRow*> todo;
  for (const auto& i : items)
    if (i.status == "pending") todo.push_back(&i);
  for (const auto& i : items)
    if (i.status == "pending" && !m.problems.count(i.problem))
      throw InputError("item " + i.item_key + " is of problem '" + i.problem +
                       "', which is not among the loaded problems");

  out.gpu = m.service.describe_gpu();
  m.progress = std::make_unique<BuildProgress>(m.build_id, static_cast<long long>(todo.size()), m.log,
                                               m.options.interactive, [&m] { return m.service.load(); });
  m.progress->message(
      std::string(created ? "new build" : "resuming") + ": " + std::to_string(items.size()) + " items from " +
      std::to_string(out.turns_read) + " turns, " + std::to_string(todo.size()) + " to fix; " +
      (m.teacher.client ? "teacher " + m.teacher.spec : "no teacher (trajectory fixes only)") + "; " +
      (out.gpu.gpu_stages ? "judging on " + out.gpu.gpu
                          : "NO GPU STAGE WILL RUN (" + out.gpu.reason +
                                "): fixes are built and checked statically, stored, and judged when this "
                                "command runs again on a GPU host"));

  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  const int n = std::max(1, std::min<int>(m.options.parallel, static_cast<int>(todo.size())));
  for (int w = 0; w < n; ++w)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < todo.size();) {
        if (m.stopping) break;
        std::string outcome;
        try {
          outcome = m.process(*todo[i]);
        } catch (const std::exception& e) {
          std::lock_guard lock(m.stop_mutex);
          m.store_errors.push_back(todo[i]->item_key + ": " + e.what());
          outcome = "pending";
        }
        m.progress->item_done(outcome);
      }
    });
  for (auto& w : workers) w.join();
  if (m.recipe.balance == Balance::post && !m.stopping) m.post_balance();
  m.progress->finish();

  m.check(m.store.load_items(m.build_id, &items), "the items of " + m.build_id);
  for (const auto& i : items) {
    ++out.items[i.status];
    if (i.status == "dropped" || i.status == "refused" || i.status == "skipped")
      ++out.reasons[i.reason.substr(0, i.reason.find(':'))];
  }
  std::vector<FixitRecordRow> records;
  m.check(m.store.load_records(m.build_id, &records), "records");
  out.records = static_cast<long long>(records.size());
  for (const auto& r : records) out.records_in_dataset += r.in_dataset;
  out.new_records = m.new_records;
  out.teacher_calls = m.teacher_calls;
  out.teacher_cost_usd = m.cost;
  out.infra_errors = m.infra_errors;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long long pending = out.items.count("pending") ? out.items.at("pending") : 0;
  out.status = pending == 0 && !m.stopping ? "complete" : "stopped";
  {
    std::lock_guard lock(m.stop_mutex);
    out.stop_reason = m.stop_reason;
    if (out.stop_reason.empty() && pending > 0)
      out.stop_reason =
          std::to_string(pending) + " item(s) still pending (see `fixit stats --items`); run the same command again";
    for (const auto& e : m.store_errors) out.stop_reason += (out.stop_reason.empty() ? "" : "; ") + e;
  }
  m.check(m.store.finish_build(m.build_id, out.status, out.stop_reason, out.to_json()), "build " + m.build_id);
  return out;
}

}  // namespace ptxbench::fixit

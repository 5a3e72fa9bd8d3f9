// `ptxbench runs export RUN --jsonl`: one self-contained ptxbench.turn/1 object per turn.
#include "store/run_export.h"

#include "store/turn_json.h"

namespace ptxbench {
namespace {

json opt(const std::optional<long long>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json turn_export_object(const RunInfo& run, const TurnRow& t, const ModelCallRow& c, const std::string* source,
                        const EvaluationRecord* record, int uncounted_calls, const ExportOptions& options) {
  json j;
  j["format"] = kTurnExportFormat;
  j["run"] = {{"id", run.id},
              {"model", run.model},
              {"arch", run.arch},
              {"knowledge", run.knowledge},
              {"problems", run.problems},
              {"trajectories", run.trajectories},
              {"turns", run.turns},
              {"status", run.status},
              {"created_at", run.created_at},
              {"config", run.config},
              {"provenance", run.provenance}};
  put_turn_fields(t, TurnKeys::export_keys, j);  // the turn's declared fields (store/turn_row.h)
  // The problem's split in the run's suite ("train" / "held-out"), null without a suite.
  const json* splits = run.config.is_object() && run.config.contains("splits") ? &run.config["splits"] : nullptr;
  j["split"] = splits && splits->is_object() && splits->contains(t.problem) ? (*splits)[t.problem] : json(nullptr);
  json speedups = json::array();
  if (record)
    for (const auto& s : record->timing) speedups.push_back({{"shape", s.shape}, {"speedup", s.speedup}});
  j["speedups"] = speedups;
  j["uncounted_model_calls"] = uncounted_calls;
  j["reply"] = {{"outcome", c.outcome},
                {"content", c.content},
                {"reasoning", c.reasoning},
                {"finish_reason", c.finish_reason},
                {"model", c.model},
                {"usage",
                 {{"input_tokens", opt(c.input_tokens)},
                  {"output_tokens", opt(c.output_tokens)},
                  {"reasoning_tokens", opt(c.reasoning_tokens)}}},
                {"error", c.error},
                {"http_status", c.http_status},
                {"attempts", c.attempts},
                {"seconds", c.seconds},
                {"retries", c.retries},
                {"response_body", c.response_bytes}};
  j["request"] = c.request;
  if (options.request_bodies) {
    j["request"]["body"] = c.request_bytes;
    j["request"]["body_is_canonical"] = c.request_is_canonical;
    j["request"]["system"] = c.system_text;
  }
  j["candidate"] = t.candidate_sha256
                       ? json{{"sha256", *t.candidate_sha256}, {"source", source ? json(*source) : json(nullptr)}}
                       : json(nullptr);
  j["evaluation"] = record ? to_json(*record) : json(nullptr);
  return j;
}

DbStatus export_run_jsonl(RunStore& store, const std::string& run_id, std::ostream& out, const ExportOptions& options,
                          size_t* lines_written) {
  RunInfo run;
  if (auto s = store.get_run(run_id, &run); !s.ok) return s;
  std::vector<TurnRow> turns;
  if (auto s = store.load_turns(run_id, &turns); !s.ok) return s;
  size_t n = 0;
  for (const auto& t : turns) {
    ModelCallRow call;
    if (auto s = store.load_model_call(t.model_call_id, &call); !s.ok) return s;
    // A turn whose candidate or evaluation cannot be read fails the export: nothing is dropped.
    std::string source;
    if (t.candidate_sha256)
      if (auto s = store.candidate_source(*t.candidate_sha256, &source); !s.ok) return s;
    EvaluationRecord record;
    if (t.evaluation_id)
      if (auto s = store.evaluation(*t.evaluation_id, &record); !s.ok) return s;
    const bool has_source = t.candidate_sha256.has_value(), has_record = t.evaluation_id.has_value();
    int calls = 0;
    if (auto s = store.count_model_calls(run_id, t.problem, t.trajectory, t.turn, &calls); !s.ok) return s;
    // invalid UTF-8 in a reply must not abort the export: replace, as nlohmann's dump allows.
    out << turn_export_object(run, t, call, has_source ? &source : nullptr, has_record ? &record : nullptr, calls - 1,
                              options)
               .dump(-1, ' ', false, json::error_handler_t::replace)
        << "\n";
    ++n;
  }
  if (lines_written) *lines_written = n;
  if (!out) return DbStatus::failure("writing the export failed");
  return {};
}

}  // namespace ptxbench

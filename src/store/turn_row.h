// The turn row, declared once: every field of a stored turn with its C++ type, its column in the
// `turns` table, how it is stored, the schema migration that added it, its key in the run export
// (ptxbench.turn/1) and what a report says about it. Everything else is made from this list: the
// struct TurnRow below, the column bindings (run_columns.cpp), the ALTER TABLE of a field added
// after the table was made (schema_migrations.cpp), the reader's column list (workspace_reader.cpp),
// the run export and its reading back (turn_json.h), metrics' loaders and the reports' turn fields.
// Adding a field to the turn is one FIELD line here plus the code that fills it.
//
// Why an X-macro: C++20 has no reflection, so a struct and a separate table of its members can
// drift apart silently; here the one line is both the member and its entry.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"

// FIELD(storage, C++ type, member, initial value, since, export key, report, unit, note)
//   storage: how the column is stored (row_columns.h's makers: text, opt_text, blob, integer,
//            opt_integer, boolean, opt_boolean, real, opt_real, json_text); the column is the
//            member's name, with "_json" for json_text.
//   since:   the migration that added the column (2: the table's own CREATE); a number above the
//            hand-written migrations makes an ALTER TABLE migration of that number.
//   export key: its key in the run export; "a.b" nests it in the object "a"; "" leaves it out.
//   report:  1: a measure the reports show per turn (metrics' turn table, the HTML drill-down) and
//            the metrics input (ptxbench.metrics/1) may carry under the column's name.
// Declared in the export's key order (the run export writes them in this order).
#define PTXBENCH_TURN_FIELDS(FIELD)                                                                                    \
  FIELD(text, std::string, run_id, , 2, "", 0, "", "")                                                                 \
  FIELD(text, std::string, problem, , 2, "problem", 0, "", "")                                                         \
  FIELD(integer, int, trajectory, = 0, 2, "trajectory", 0, "", "0-based")                                              \
  FIELD(integer, int, turn, = 0, 2, "turn", 0, "", "0-based")                                                          \
  FIELD(text, std::string, phase, = "done", 2, "phase", 0, "",                                                         \
        "judging: reply stored, candidate not judged yet; done")                                                       \
  FIELD(text, std::string, state, , 2, "state", 0, "", "verdict name, no_code, a provider outcome, or pending")        \
  FIELD(text, std::string, provider_outcome, , 2, "provider_outcome", 0, "", "")                                       \
  FIELD(opt_text, std::optional<std::string>, verdict, , 2, "verdict", 0, "", "")                                      \
  FIELD(opt_boolean, std::optional<bool>, target_static, , 2, "target_static", 0, "", "null: not judged")              \
  FIELD(opt_boolean, std::optional<bool>, target_executed, , 2, "target_executed", 1, "", "null: unknown")             \
  FIELD(opt_boolean, std::optional<bool>, target_correct, , 2, "target_correct", 0, "", "null: not judged")            \
  FIELD(opt_real, std::optional<double>, speedup_geomean, , 2, "speedup_geomean", 1, "x", "")                          \
  FIELD(opt_integer, std::optional<long long>, input_tokens, , 2, "tokens.input", 0, "tokens", "null: not reported")   \
  FIELD(opt_integer, std::optional<long long>, reasoning_tokens, , 2, "tokens.reasoning", 1, "tokens",                 \
        "null: not reported")                                                                                          \
  FIELD(integer, long long, reasoning_chars, = 0, 2, "reasoning_chars", 1, "characters", "")                           \
  FIELD(opt_integer, std::optional<long long>, output_tokens, , 2, "tokens.output", 1, "tokens", "null: not reported") \
  FIELD(opt_real, std::optional<double>, cost_usd, , 2, "cost_usd", 0, "USD", "null: no prices")                       \
  FIELD(real, double, model_seconds, = 0, 2, "timings.model_s", 0, "s", "")                                            \
  FIELD(real, double, compile_wait_seconds, = 0, 2, "timings.compile_wait_s", 0, "s", "")                              \
  FIELD(real, double, prepare_seconds, = 0, 2, "timings.prepare_s", 0, "s", "")                                        \
  FIELD(real, double, build_seconds, = 0, 2, "timings.build_s", 0, "s", "")                                            \
  FIELD(real, double, gpu_wait_seconds, = 0, 2, "timings.gpu_wait_s", 0, "s", "")                                      \
  FIELD(real, double, gpu_seconds, = 0, 2, "timings.gpu_s", 0, "s", "")                                                \
  FIELD(text, std::string, started_at, , 2, "started_at", 0, "", "")                                                   \
  FIELD(text, std::string, replied_at, , 2, "replied_at", 0, "", "")                                                   \
  FIELD(text, std::string, finished_at, , 2, "finished_at", 0, "", "")                                                 \
  FIELD(json_text, json, context, = json::object(), 2, "context", 0, "",                                               \
        "what the request held: full turns, one-line turns")                                                           \
  FIELD(json_text, json, extraction, = json::object(), 2, "extraction", 0, "", "")                                     \
  FIELD(opt_text, std::optional<std::string>, candidate_sha256, , 2, "", 0, "", "the export's candidate.sha256")       \
  FIELD(blob, std::string, feedback, , 2, "feedback", 0, "", "what the model was told about this turn")                \
  FIELD(text, std::string, feedback_version, , 2, "feedback_version", 0, "", "")                                       \
  FIELD(opt_integer, std::optional<long long>, evaluation_id, , 2, "evaluation_id", 0, "", "")                         \
  FIELD(boolean, bool, reused_evaluation, = false, 2, "reused_evaluation", 0, "",                                      \
        "an identical candidate's evaluation in this run was reused")                                                  \
  FIELD(integer, long long, model_call_id, = 0, 2, "", 0, "", "")                                                      \
  FIELD(opt_integer, std::optional<long long>, cached_input_tokens, , 7, "tokens.cached_input", 0, "tokens",           \
        "of input_tokens, those read from the provider's prompt cache; null: not reported")

namespace ptxbench {

struct TurnRow {
#define PTXBENCH_TURN_MEMBER(storage, type, member, init, since, export_key, report, unit, note) type member init;
  PTXBENCH_TURN_FIELDS(PTXBENCH_TURN_MEMBER)
#undef PTXBENCH_TURN_MEMBER
};

// What the declaration says about one field, for code that walks the fields without touching a
// row (the reports' field lists, the schema's checks).
struct TurnFieldInfo {
  const char* member;
  const char* storage;  // "opt_real", ...
  int since;
  const char* export_key;
  bool report;
  const char* unit;
  const char* note;
  std::string column() const {  // the member's name; json_text columns add "_json"
    return std::string(member) + (std::string_view(storage) == "json_text" ? "_json" : "");
  }
};

#define PTXBENCH_TURN_FIELD_INFO(storage, type, member, init, since, export_key, report, unit, note) \
  TurnFieldInfo{#member, #storage, since, export_key, report != 0, unit, note},
inline const TurnFieldInfo kTurnFields[] = {PTXBENCH_TURN_FIELDS(PTXBENCH_TURN_FIELD_INFO)};
#undef PTXBENCH_TURN_FIELD_INFO

// One field's name, for the code that means that field (turn_field::speedup_geomean): its member,
// its key in the metrics input, its column (json_text's column adds "_json").
namespace turn_field {
#define PTXBENCH_TURN_FIELD_NAME(storage, type, member, init, since, export_key, report, unit, note) \
  inline constexpr const char* member = #member;
PTXBENCH_TURN_FIELDS(PTXBENCH_TURN_FIELD_NAME)
#undef PTXBENCH_TURN_FIELD_NAME
}  // namespace turn_field

}  // namespace ptxbench

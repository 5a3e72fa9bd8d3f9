// The Fixit tables' rows, declared once, field by field, as store/turn_row.h declares the turn: each
// field's C++ type, its member, its column, how it is stored and the schema migration that added it.
// Made from these lists: the row structs below (fixit_store.h hands them out), the column bindings
// and reading (fixit_columns.cpp), the ALTER TABLE of a field added after its table was made
// (schema_migrations.cpp), and the test that the migrated tables hold every declared column and no
// other. Adding a column is one FIELD line here plus the code that fills it.
#pragma once
#include <optional>
#include <string>

#include "core/json.h"

// FIELD(storage, C++ type, member, initial value, column, since, note)
//   storage: row_columns.h's makers (text, opt_text, blob, integer, opt_integer, boolean, real,
//            opt_real, json_or_empty: JSON as its text, a malformed one read as {}), or none: a
//            member the row carries in memory only (no column).
//   since:   the migration that added the column (3: the tables' own CREATE); a number above the
//            hand-written migrations makes an ALTER TABLE migration of that number.
#define PTXBENCH_FIXIT_BUILD_FIELDS(FIELD)                                                 \
  FIELD(text, std::string, id, , "id", 3, "")                                              \
  FIELD(text, std::string, created_at, , "created_at", 3, "")                              \
  FIELD(text, std::string, updated_at, , "updated_at", 3, "")                              \
  FIELD(text, std::string, status, = "running", "status", 3, "running, complete, stopped") \
  FIELD(text, std::string, stop_reason, , "stop_reason", 3, "")                            \
  FIELD(text, std::string, recipe_name, , "recipe_name", 3, "")                            \
  FIELD(text, std::string, recipe_sha256, , "recipe_sha256", 3, "")                        \
  FIELD(text, std::string, recipe_text, , "recipe_text", 3, "the recipe file's bytes")     \
  FIELD(text, std::string, template_kind, , "template", 3, "fixit, kernelgen")             \
  FIELD(text, std::string, teacher, , "teacher", 3, "PROVIDER:MODEL or \"\"")              \
  FIELD(json_or_empty, json, config, = json::object(), "config_json", 3,                   \
        "the resolved recipe, the sources, the harness, the options")                      \
  FIELD(json_or_empty, json, summary, = json::object(), "summary_json", 3, "the last invocation's counts")

#define PTXBENCH_FIXIT_ITEM_FIELDS(FIELD)                                                              \
  FIELD(text, std::string, build_id, , "build_id", 3, "")                                              \
  FIELD(text, std::string, item_key, , "item_key", 3, "")                                              \
  FIELD(integer, int, ordinal, = 0, "ordinal", 3,                                                      \
        "within its problem, in selection order (the teacher's trajectory number)")                    \
  FIELD(text, std::string, problem, , "problem", 3, "")                                                \
  FIELD(text, std::string, split, , "split", 3, "")                                                    \
  FIELD(text, std::string, template_kind, , "template", 3, "")                                         \
  FIELD(text, std::string, error_class, , "error_class", 3, "")                                        \
  FIELD(text, std::string, signature, , "signature", 3, "")                                            \
  FIELD(text, std::string, status, , "status", 3, "pending, record, dropped, refused, skipped")        \
  FIELD(text, std::string, reason, , "reason", 3, "")                                                  \
  FIELD(text, std::string, kernel_hash, , "kernel_hash", 3, "")                                        \
  FIELD(text, std::string, fix_source, , "fix_source", 3, "trajectory, teacher (\"\" until a record)") \
  FIELD(json_or_empty, json, source, = json::object(), "source_json", 3,                               \
        "run, problem, trajectory, turn, where it was read, later fix turns")                          \
  FIELD(json_or_empty, json, context, = json::object(), "context_json", 3,                             \
        "system, problem_prompt, failed_reply, failing_kernel, feedback, ...")                         \
  FIELD(json_or_empty, json, error, = json::object(), "error_json", 3, "the error class's detail")     \
  FIELD(text, std::string, updated_at, , "updated_at", 3, "set by the store")

#define PTXBENCH_FIXIT_ATTEMPT_FIELDS(FIELD)                                                          \
  FIELD(text, std::string, build_id, , "build_id", 3, "")                                             \
  FIELD(text, std::string, item_key, , "item_key", 3, "")                                             \
  FIELD(integer, int, attempt, = 0, "attempt", 3, "0-based over every attempt of the item")           \
  FIELD(text, std::string, kind, , "kind", 3, "trajectory, teacher, explain")                         \
  FIELD(integer, int, teacher_index, = -1, "teacher_index", 3,                                        \
        "teacher: its 0-based number among the item's teacher fixes")                                 \
  FIELD(text, std::string, phase, , "phase", 3,                                                       \
        "replied (teacher reply stored, not judged), judged, done (explain, trajectory)")             \
  FIELD(text, std::string, prompt_version, , "prompt_version", 3,                                     \
        "fixit-teacher/1, fixit-explain/1; \"\" for a trajectory turn")                               \
  FIELD(text, std::string, source_turn, , "source_turn", 3, "trajectory: the later turn's address")   \
  FIELD(text, std::string, model, , "model", 3, "")                                                   \
  FIELD(text, std::string, outcome, , "outcome", 3, "")                                               \
  FIELD(text, std::string, finish_reason, , "finish_reason", 3, "")                                   \
  FIELD(text, std::string, error, , "error", 3, "")                                                   \
  FIELD(integer, int, http_status, = 0, "http_status", 3, "")                                         \
  FIELD(real, double, seconds, = 0, "seconds", 3, "")                                                 \
  FIELD(opt_integer, std::optional<long long>, input_tokens, , "input_tokens", 3, "")                 \
  FIELD(opt_integer, std::optional<long long>, output_tokens, , "output_tokens", 3, "")               \
  FIELD(opt_integer, std::optional<long long>, reasoning_tokens, , "reasoning_tokens", 3, "")         \
  FIELD(opt_real, std::optional<double>, cost_usd, , "cost_usd", 3, "")                               \
  FIELD(json_or_empty, json, request, = json::object(), "request_json", 3,                            \
        "{\"system_sha256\", \"messages\", \"options\"}")                                             \
  FIELD(none, std::string, request_bytes, , "", 3, "in: stored as a blob, named by request_sha256")   \
  FIELD(none, std::string, response_bytes, , "", 3, "in: stored as a blob, named by response_sha256") \
  FIELD(none, std::string, system_text, , "", 3, "in: stored as a blob, named by system_sha256")      \
  FIELD(text, std::string, request_sha256, , "request_sha256", 3, "set by the store")                 \
  FIELD(text, std::string, response_sha256, , "response_sha256", 3, "set by the store")               \
  FIELD(text, std::string, system_sha256, , "system_sha256", 3, "set by the store")                   \
  FIELD(blob, std::string, content, , "content", 3, "")                                               \
  FIELD(blob, std::string, reasoning, , "reasoning", 3, "")                                           \
  FIELD(opt_text, std::optional<std::string>, candidate_sha256, , "candidate_sha256", 3, "")          \
  FIELD(none, std::string, candidate, , "", 3, "the fix's source (in: stored in candidates)")         \
  FIELD(opt_integer, std::optional<long long>, evaluation_id, , "evaluation_id", 3, "")               \
  FIELD(text, std::string, verdict, , "verdict", 3, "")                                               \
  FIELD(boolean, bool, accepted, = false, "accepted", 3, "")                                          \
  FIELD(text, std::string, why, , "why", 3, "why it was not accepted (\"\" when it was)")             \
  FIELD(blob, std::string, explanation, , "explanation", 3, "the prose kept")                         \
  FIELD(blob, std::string, feedback, , "feedback", 3,                                                 \
        "the feedback rendered from its evaluation (a retry shows it to the teacher)")                \
  FIELD(text, std::string, created_at, , "created_at", 3, "set by the store")                         \
  FIELD(text, std::string, updated_at, , "updated_at", 3, "set by the store")

#define PTXBENCH_FIXIT_RECORD_ROW_FIELDS(FIELD)                                           \
  FIELD(text, std::string, build_id, , "build_id", 3, "")                                 \
  FIELD(text, std::string, item_key, , "item_key", 3, "")                                 \
  FIELD(json_or_empty, json, record, = json::object(), "record_json", 3,                  \
        "the record (ptxbench.fixit/1, store/fixit_record.h)")                            \
  FIELD(boolean, bool, in_dataset, = true, "in_dataset", 3, "")                           \
  FIELD(text, std::string, excluded_reason, , "excluded_reason", 3, "post-balancing cut") \
  FIELD(text, std::string, created_at, , "created_at", 3, "")

namespace ptxbench {

#define PTXBENCH_FIXIT_MEMBER(storage, type, member, init, column, since, note) type member init;
struct FixitBuildRow {
  PTXBENCH_FIXIT_BUILD_FIELDS(PTXBENCH_FIXIT_MEMBER)
};
struct FixitItemRow {
  PTXBENCH_FIXIT_ITEM_FIELDS(PTXBENCH_FIXIT_MEMBER)
};
struct FixitAttemptRow {
  PTXBENCH_FIXIT_ATTEMPT_FIELDS(PTXBENCH_FIXIT_MEMBER)
};
struct FixitRecordRow {
  PTXBENCH_FIXIT_RECORD_ROW_FIELDS(PTXBENCH_FIXIT_MEMBER)
};
#undef PTXBENCH_FIXIT_MEMBER

// What the declaration says about one field, for code that walks a table's columns without a row
// (the migrations, the schema's test).
struct StoredFieldInfo {
  const char* table;
  const char* member;
  const char* storage;  // "text", ...; "none": no column
  const char* column;
  int since;
};

#define PTXBENCH_FIXIT_INFO(table, storage, member, column, since) \
  StoredFieldInfo{table, #member, #storage, column, since},
#define PTXBENCH_FIXIT_BUILD_INFO(storage, type, member, init, column, since, note) \
  PTXBENCH_FIXIT_INFO("fixit_builds", storage, member, column, since)
#define PTXBENCH_FIXIT_ITEM_INFO(storage, type, member, init, column, since, note) \
  PTXBENCH_FIXIT_INFO("fixit_items", storage, member, column, since)
#define PTXBENCH_FIXIT_ATTEMPT_INFO(storage, type, member, init, column, since, note) \
  PTXBENCH_FIXIT_INFO("fixit_attempts", storage, member, column, since)
#define PTXBENCH_FIXIT_RECORD_ROW_INFO(storage, type, member, init, column, since, note) \
  PTXBENCH_FIXIT_INFO("fixit_records", storage, member, column, since)
// Every declared field of the four tables, table by table (the `none` ones included).
inline const StoredFieldInfo kFixitFields[] = {
    PTXBENCH_FIXIT_BUILD_FIELDS(PTXBENCH_FIXIT_BUILD_INFO) PTXBENCH_FIXIT_ITEM_FIELDS(PTXBENCH_FIXIT_ITEM_INFO)
        PTXBENCH_FIXIT_ATTEMPT_FIELDS(PTXBENCH_FIXIT_ATTEMPT_INFO)
            PTXBENCH_FIXIT_RECORD_ROW_FIELDS(PTXBENCH_FIXIT_RECORD_ROW_INFO)};
#undef PTXBENCH_FIXIT_BUILD_INFO
#undef PTXBENCH_FIXIT_ITEM_INFO
#undef PTXBENCH_FIXIT_ATTEMPT_INFO
#undef PTXBENCH_FIXIT_RECORD_ROW_INFO
#undef PTXBENCH_FIXIT_INFO

}  // namespace ptxbench

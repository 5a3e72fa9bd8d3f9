// The Fixit record (format ptxbench.fixit/1), declared once, field by field, as store/turn_row.h
// declares the turn: each field's C++ type, its member, its key in the record ("a.b.c" nests it),
// the record format version that added it, whether every record must hold it as a string, and what
// it means. The record is stored whole in fixit_records.record_json (store/fixit_rows.h) and
// exported as it is by `fixit export --format records`; the chat exports (fixit/export.h), the
// repair notes (fixit_core/repair_notes.h) and the Fixit report tables read it. Made from this list:
// the struct FixitRecord, its JSON both ways (the builder writes it; readers get it back typed) and
// the check of a stored record (fixit_core/record_format.h). A new field is one FIELD line here
// plus the code that fills it (fixit/builder.cpp).
#pragma once
#include <optional>
#include <string>

#include "core/json.h"

// FIELD(C++ type, member, initial value, key, since, required, note)
//   key:      "a.b": b in the object a (any depth). Declared in the record's key order (the JSON
//             is written in this order, so a stored record reads back to the same bytes).
//   since:    the record format version (ptxbench.fixit/N) that added the field.
//   required: 1: every record holds it as a string (a record without it is refused).
// An object whose every field is null is written as null (kFixitRecordNullGroups): `error` of a
// KernelGen record, `provenance.teacher` of a record no teacher worked on.
#define PTXBENCH_FIXIT_RECORD_FIELDS(FIELD)                                                                     \
  FIELD(std::string, format, = kFixitRecordFormat, "format", 1, 1, "ptxbench.fixit/1")                          \
  FIELD(std::string, id, , "id", 1, 1, "BUILD/KEY")                                                             \
  FIELD(std::string, key, , "key", 1, 0, "the item's key in its build")                                         \
  FIELD(std::string, build, , "build", 1, 0, "")                                                                \
  FIELD(std::string, recipe_name, , "recipe.name", 1, 0, "")                                                    \
  FIELD(std::string, recipe_sha256, , "recipe.sha256", 1, 0, "")                                                \
  FIELD(std::string, template_kind, , "template", 1, 1, "fixit, kernelgen")                                     \
  FIELD(std::string, problem, , "problem", 1, 1, "")                                                            \
  FIELD(std::string, split, , "split", 1, 1, "")                                                                \
  FIELD(std::string, arch, , "arch", 1, 0, "")                                                                  \
  FIELD(std::optional<std::string>, error_class, , "error.class", 1, 0, "null: a KernelGen record")             \
  FIELD(std::optional<std::string>, error_signature, , "error.signature", 1, 0, "")                             \
  FIELD(json, error_detail, , "error.detail", 1, 0, "the error class's structured detail")                      \
  FIELD(std::string, system, , "context.system", 1, 1, "")                                                      \
  FIELD(std::string, system_source, , "context.system_source", 1, 0, "as_sent, rebuilt, rebuilt_differs, none") \
  FIELD(std::string, problem_prompt, , "context.problem_prompt", 1, 1, "")                                      \
  FIELD(std::string, failed_reply, , "context.failed_reply", 1, 1, "")                                          \
  FIELD(std::string, failing_kernel, , "context.failing_kernel", 1, 0, "")                                      \
  FIELD(std::string, feedback, , "context.feedback", 1, 1, "")                                                  \
  FIELD(std::string, feedback_version, , "context.feedback_version", 1, 0, "")                                  \
  FIELD(std::string, explanation, , "target.explanation", 1, 1, "")                                             \
  FIELD(std::string, explanation_source, , "target.explanation_source", 1, 0,                                   \
        "fixing_turn, teacher_fix, teacher_explain, source_turn, none")                                         \
  FIELD(std::string, kernel, , "target.kernel", 1, 1, "the fixed kernel")                                       \
  FIELD(std::string, message, , "target.message", 1, 1,                                                         \
        "the assistant's whole answer: the explanation, then the kernel in a block")                            \
  FIELD(std::string, fix_source, , "fix.source", 1, 0, "trajectory, teacher")                                   \
  FIELD(json, fix_turn, , "fix.turn", 1, 0, "trajectory: the fixing turn; null")                                \
  FIELD(int, teacher_attempts, = 0, "fix.teacher_attempts", 1, 0, "")                                           \
  FIELD(int, fix_attempt, = 0, "fix.attempt", 1, 0, "")                                                         \
  FIELD(std::optional<long long>, fix_evaluation_id, , "fix.evaluation_id", 1, 0, "")                           \
  FIELD(std::string, fix_verdict, , "fix.verdict", 1, 0, "the fixing evaluation's, as core/record.h keys them") \
  FIELD(std::optional<bool>, fix_target_executed, , "fix.target_executed", 1, 0, "")                            \
  FIELD(std::optional<double>, fix_tensor_flop_share, , "fix.tensor_flop_share", 1, 0, "")                      \
  FIELD(std::optional<double>, fix_speedup_geomean, , "fix.speedup_geomean", 1, 0, "")                          \
  FIELD(std::string, fix_gpu, , "fix.gpu", 1, 0, "")                                                            \
  FIELD(json, fix_harness, , "fix.harness", 1, 0, "the harness that judged the fix")                            \
  FIELD(std::string, source, , "provenance.source", 1, 0, "where the failing turn was read")                    \
  FIELD(std::string, run, , "provenance.run", 1, 0, "")                                                         \
  FIELD(std::string, model, , "provenance.model", 1, 0, "")                                                     \
  FIELD(int, trajectory, = 0, "provenance.trajectory", 1, 0, "")                                                \
  FIELD(int, turn, = 0, "provenance.turn", 1, 0, "")                                                            \
  FIELD(std::string, candidate_sha256, , "provenance.candidate_sha256", 1, 0, "")                               \
  FIELD(json, run_harness, , "provenance.run_harness", 1, 0, "")                                                \
  FIELD(json, run_gpu, , "provenance.run_gpu", 1, 0, "")                                                        \
  FIELD(std::optional<std::string>, teacher_model, , "provenance.teacher.model", 1, 0, "")                      \
  FIELD(std::optional<std::string>, teacher_prompt_version, , "provenance.teacher.prompt_version", 1, 0, "")    \
  FIELD(std::optional<long long>, teacher_calls, , "provenance.teacher.calls", 1, 0, "")                        \
  FIELD(std::optional<double>, teacher_cost_usd, , "provenance.teacher.cost_usd", 1, 0, "")                     \
  FIELD(std::optional<long long>, teacher_input_tokens, , "provenance.teacher.input_tokens", 1, 0, "")          \
  FIELD(std::optional<long long>, teacher_output_tokens, , "provenance.teacher.output_tokens", 1, 0, "")

namespace ptxbench {

inline constexpr const char* kFixitRecordFormat = "ptxbench.fixit/1";

// The objects written as null when every field in them is.
inline constexpr const char* kFixitRecordNullGroups[] = {"error", "provenance.teacher"};

struct FixitRecord {
#define PTXBENCH_FIXIT_RECORD_MEMBER(type, member, init, key, since, required, note) type member init;
  PTXBENCH_FIXIT_RECORD_FIELDS(PTXBENCH_FIXIT_RECORD_MEMBER)
#undef PTXBENCH_FIXIT_RECORD_MEMBER
};

struct FixitRecordFieldInfo {
  const char* member;
  const char* key;
  int since;
  bool required;
};
#define PTXBENCH_FIXIT_RECORD_INFO(type, member, init, key, since, required, note) \
  FixitRecordFieldInfo{#member, key, since, required != 0},
inline const FixitRecordFieldInfo kFixitRecordFields[] = {PTXBENCH_FIXIT_RECORD_FIELDS(PTXBENCH_FIXIT_RECORD_INFO)};
#undef PTXBENCH_FIXIT_RECORD_INFO

// The record as JSON, in the declared key order.
json fixit_record_json(const FixitRecord& r);

// Reads every declared field `j` holds (an absent or null one keeps its initial value). Throws
// InputError "WHERE: field 'KEY' must be ..." for a value of the wrong type, and for a required
// field that is absent (or a `format` that is not kFixitRecordFormat: "WHERE: not a ... record").
FixitRecord fixit_record_from_json(const json& j, const std::string& where);

}  // namespace ptxbench

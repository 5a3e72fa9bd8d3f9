// The Fixit record (format ptxbench.fixit/1; its fields, declared once: store/fixit_record.h),
// stored in fixit_records and exported by `fixit export --format records`; the chat exports
// (export.h) are made from it alone:
//   {"format", "id" (BUILD/KEY), "key", "build", "recipe": {name, sha256}, "template": fixit|kernelgen,
//    "problem", "split", "arch",
//    "error": {"class", "signature", "detail"} | null (kernelgen),
//    "context": {"system", "system_source": as_sent|rebuilt|rebuilt_differs|none, "problem_prompt",
//                "failed_reply", "failing_kernel", "feedback", "feedback_version"},
//    "target": {"explanation", "explanation_source": fixing_turn|teacher_fix|teacher_explain|source_turn|none,
//               "kernel", "message" (the assistant's whole answer: explanation, then the kernel in a block)},
//    "fix": {"source": trajectory|teacher, "turn" (trajectory), "teacher_attempts", "evaluation_id",
//            and the fixing evaluation's verdict, target_executed, tensor_flop_share and speedup_geomean
//            under the evaluation record's keys (core/record.h), "gpu", "harness"},
//    "provenance": {"source", "run", "model", "trajectory", "turn", "candidate_sha256", "run_harness", "run_gpu",
//                   "teacher": {"model", "prompt_version", "calls", "cost_usd", "input_tokens", "output_tokens"} |
//                   null}}
#pragma once
#include <string>

#include "core/json.h"
#include "store/fixit_record.h"

namespace ptxbench::fixit {

inline constexpr const char* kRecordFormat = kFixitRecordFormat;

// The assistant's answer a record trains: the explanation, then the kernel in one ```cuda block.
std::string target_message(const std::string& explanation, const std::string& kernel);

// The stored record, typed. Throws InputError naming `where` when it lacks a field the exports need
// (or holds a field of the wrong type).
FixitRecord check_record(const json& record, const std::string& where);

}  // namespace ptxbench::fixit

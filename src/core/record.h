// The evaluation record: one candidate judged on one problem. Stored (SQLite), exported (JSON),
// read by feedback, metrics and reports. Stage details stay as JSON objects so a stage can add a
// field without a schema change; the fields every consumer reads are typed.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/verdict.h"

namespace ptxbench {

enum class StageStatus { ok, failed, skipped };
std::string_view to_string(StageStatus s);

struct StageResult {
  std::string name;  // build, static, sanitize, correctness, target_run, timing
  StageStatus status = StageStatus::skipped;
  double seconds = 0;
  std::string message;  // one line: why it failed or was skipped
  json detail = json::object();
};

struct ShapeTiming {
  std::map<std::string, long long> shape;
  double median_ms = 0, p10_ms = 0, p90_ms = 0, spread = 0;  // spread: (p90-p10)/median
  int samples = 0;
  double baseline_median_ms = 0, baseline_spread = 0;
  int baseline_samples = 0;
  double speedup = 0;  // baseline / candidate
  double tflops = 0, baseline_tflops = 0;
  bool throttled = false;
};

struct EvaluationRecord {
  int schema = 2;  // 2: target_executed may be null (unknown); tensor_flop_share
  std::string problem;
  std::string arch;
  std::string gpu;
  std::string candidate_path;
  std::string candidate_sha256;
  std::string created_at;  // ISO-8601 UTC
  Verdict verdict = Verdict::not_run;
  std::string reason;  // why this verdict, in one or two lines
  bool target_static = false;
  // Every target group executed during a checked call; nullopt = unknown (the counting tool
  // failed for its own reasons: never charged to the candidate). JSON: true, false or null.
  std::optional<bool> target_executed;
  // Share of the problem's FLOPs done by the target tensor instructions on the counted call.
  std::optional<double> tensor_flop_share;
  std::map<std::string, long long> static_families;    // SASS family -> count in the cubin
  std::map<std::string, long long> executed_families;  // SASS family -> executed instructions
  std::vector<StageResult> stages;
  std::vector<ShapeTiming> timing;
  std::optional<double> speedup_geomean;
  json environment = json::object();  // GPU clocks, throttle reasons, driver, tool versions

  StageResult* stage(const std::string& name);
  const StageResult* stage(const std::string& name) const;
  StageResult& add_stage(StageResult s);
};

// Always valid UTF-8: strings that were not are replaced for reading, with their exact bytes in
// "non_utf8" (core/bytes.h), which record_from_json puts back.
json to_json(const EvaluationRecord& r);
EvaluationRecord record_from_json(const json& j);  // throws InputError on a malformed record

}  // namespace ptxbench

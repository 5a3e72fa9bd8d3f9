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
  double baseline_median_ms = 0, baseline_spread = 0;  // the baseline the speedup uses (below)
  // The library beside the candidate (interleaved) and alone (before the candidate loaded, or timed
  // again after a drift); the speedup's baseline is the faster of them ("interleaved" or "alone"),
  // so a library slowed beside the candidate earns it nothing. 0 / "" when not measured.
  double baseline_interleaved_ms = 0, baseline_alone_ms = 0;
  std::string baseline_source;
  int baseline_samples = 0;
  double speedup = 0;  // baseline / candidate
  double tflops = 0, baseline_tflops = 0;
  bool throttled = false;
};

struct EvaluationRecord {
  // 2: target_executed may be null (unknown); tensor_flop_share. 3: target_executed is strict (the
  // targets did the problem's work: shares against [targets.<arch>.work]); the paper's looser flag
  // is target_seen; tma_byte_share; per-shape baseline source. A schema-2 record's target_executed
  // is the loose flag (read back as target_seen too).
  int schema = 3;
  std::string problem;
  // The candidate's language: "cuda" (CUDA C++ with inline PTX) or "triton" (core/language.h).
  // Added without a schema change: a record without it is a CUDA one.
  std::string language = "cuda";
  std::string arch;
  std::string gpu;
  std::string candidate_path;
  std::string candidate_sha256;
  std::string created_at;  // ISO-8601 UTC
  Verdict verdict = Verdict::not_run;
  std::string reason;  // why this verdict, in one or two lines
  bool target_static = false;
  // The target instructions did the work on every counted call: every target group executed AND
  // the target tensor family did at least the problem's share of the FLOPs AND the TMA family moved
  // at least its share of the operand bytes (problem.toml [targets.<arch>.work]). nullopt = unknown
  // (the counting tool failed for its own reasons: never charged to the candidate). JSON: true,
  // false or null. Every metric that says "target" reads this one.
  std::optional<bool> target_executed;
  // The paper's looser flag: every target group executed (at least one instruction each) on every
  // counted call, whatever share of the work it did. Kept so results compare with the paper.
  std::optional<bool> target_seen;
  // Share of the problem's FLOPs done by the target tensor instructions on the counted calls.
  std::optional<double> tensor_flop_share;
  // Bytes the TMA copies moved (a lower bound, judge/target_counts.h) over the operand bytes.
  std::optional<double> tma_byte_share;
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

// Keys of the record's JSON that other formats repeat for the same value (the Fixit item's error and
// record, the reports' evaluation table), named once here.
namespace record_key {
inline constexpr const char* speedup_geomean = "speedup_geomean";
}  // namespace record_key

// Always valid UTF-8: strings that were not are replaced for reading, with their exact bytes in
// "non_utf8" (core/bytes.h), which record_from_json puts back.
json to_json(const EvaluationRecord& r);
EvaluationRecord record_from_json(const json& j);  // throws InputError on a malformed record

}  // namespace ptxbench

// The target work of the timed calls (issue 30): the worker's range profiler counted, with nothing
// patched, the target tensor operations and TMA bytes of every timed sample of a shape together,
// of a few library calls alone, and of two whole library samples (runner/timed_work.h). Here the
// judge takes the library's calls and every sample's harness work out and divides by the
// candidate's calls: its average share over every timed call. A kernel that runs
// its target path only in the calls it guesses are counted runs it in few of the timed calls, and
// its share falls with them; the smallest share over the shapes decides.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

// FLOPs per operation of the range profiler's tensor-op counters (sm__ops_path_tensor_*): an
// operation is a multiply or an add, so one per FLOP (H100: a cuBLASLt bf16 GEMM at 4096^3 counted
// 1.000 operations per FLOP, bench-results/README.md).
inline constexpr double kTensorFlopsPerOp = 1.0;

struct TimedWorkCheck {
  bool counted = false;        // every timing event has the counters' figures
  bool does_the_work = false;  // counted, and on every shape both shares reached the minimums
  std::string unavailable;     // why not counted (a tool's reason), "" when counted
  std::string shortfall;       // the first shape that fell short, and why
  std::optional<double> tensor_flop_share, tma_byte_share;  // the smallest over the shapes
  json shapes = json::array();                              // per shape: calls, shares, the library's
};

// `timing_events`: the worker's "timing" events. `operand_bytes(shape)` as for the counted calls.
// Throws InputError on a malformed timed_work object.
TimedWorkCheck check_timed_work(const std::vector<json>& timing_events, double min_tensor_flop_share,
                                double min_tma_byte_share,
                                const std::function<double(const json& shape)>& operand_bytes,
                                const std::function<std::string(const json& shape)>& shape_name);

}  // namespace ptxbench

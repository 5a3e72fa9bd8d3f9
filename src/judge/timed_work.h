// The target work of the timed calls, by allowlist (issues 30 and 45): the worker's range profiler
// counted, with nothing patched, every metric of the chip's work formula (probes/work_metrics.h)
// over every timed sample of a shape together, over a few library calls alone, and over two whole
// library samples (runner/timed_work.h). Here the judge takes the library's calls and every
// sample's harness work out, divides by the candidate's calls, and holds the averages against the
// problem's TargetWork:
//   - the target family's operations of the problem's type over its FLOPs (capped at
//     max_target_flop_ratio: waste raises nothing) at least tensor_flop_share;
//   - everything else that could have done math, at most max_other_math_share of the FLOPs;
//   - the TMA's share of every global byte the kernels read, at least tma_load_share.
// A kernel that runs its target path only in the calls it guesses are counted runs it in few of the
// timed calls, and its shares fall with them; the worst shape decides. A figure the counters could
// not read leaves the flag unknown, never granted.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "problems/problem_spec.h"

namespace ptxbench {

// FLOPs per operation of the target family's tensor-op counters (sm__ops_path_tensor_*): an
// operation is a multiply or an add, so one per FLOP (H100: a cuBLASLt bf16 GEMM at 4096^3 counted
// 1.000 operations per FLOP, bench-results/README.md).
inline constexpr double kTensorFlopsPerOp = 1.0;

struct TimedWorkCheck {
  bool counted = false;        // every timing event has the counters' figures
  bool does_the_work = false;  // counted, and on every shape every bound held
  std::string unavailable;     // why not counted (a tool's reason), "" when counted
  std::string shortfall;       // the first shape that fell short, and why
  // The worst over the shapes: the smallest target and TMA shares, the largest other-math share.
  std::optional<double> tensor_flop_share, tma_load_share, other_math_share;
  std::optional<double> tma_byte_share;  // TMA bytes (loads and stores) per operand byte, the smallest
  json shapes = json::array();           // per shape: calls, figures, the library's, the harness's
};

// `timing_events`: the worker's "timing" events. `operand_bytes(shape)` gives the problem's operand
// bytes (0: none stated). Throws InputError on a malformed timed_work object.
TimedWorkCheck check_timed_work(const std::vector<json>& timing_events, const TargetWork& work,
                                const std::function<double(const json& shape)>& operand_bytes,
                                const std::function<std::string(const json& shape)>& shape_name);

}  // namespace ptxbench

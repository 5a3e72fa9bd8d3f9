// The work a call's kernels did, by allowlist (issue 45): which hardware counters measure it on each
// chip and how their values make the judge's figures. Pure data and arithmetic (no CUPTI): the
// worker counts the metrics named here (runner/integrity/work_counters.h), the judge turns their
// values into shares (judge/timed_work.h). Every counter's meaning on GH100 was measured with
// bench/counter_semantics (docs/anti-cheat.md, "Targets are counted on the calls that count").
//
// What credits the target:
//   - target_ops: the target tensor family's operations of the problem's operand type (an
//     operation is a multiply or an add: one per FLOP);
//   - tma_load_bytes: global bytes the TMA brought into shared memory.
// What counts against it, everything else that could have done the problem's math or brought its
// operands, each counter weighed by the most FLOPs (or bytes) one of its events can stand for:
//   - other_math: older tensor-core instructions of every kind, the FMA, ALU, XU and FP64 pipes,
//     and every other instruction at one operation each;
//   - global_load_bytes: every global byte the SMs read, whatever the path (TMA, LDG, cp.async,
//     texture), so TMA share = tma_load_bytes / global_load_bytes.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench {

struct MetricTerm {
  std::string metric;  // a CUPTI metric (the range profiler's name, with its .sum rollup)
  double weight = 1;   // the figure adds value x weight
};

struct WorkFormula {
  std::string chip;                    // CUPTI's chip name: GH100, GB100 ...
  std::string math_class;              // the problem's operand type: bf16, fp16, fp8
  std::vector<MetricTerm> target_ops;  // the target family's operations of that type
  std::vector<MetricTerm> other_math;  // the most FLOPs everything else could have done
  std::vector<MetricTerm> tma_load_bytes;
  std::vector<MetricTerm> tma_store_bytes;    // stores and reductions
  std::vector<MetricTerm> global_load_bytes;  // every path, the TMA's included
  // Every metric named above, once each, in the order a pass is filled: the target's first.
  std::vector<std::string> metrics() const;
};

// Null when this harness has no formula for the chip, or none for the operand type on it.
std::optional<WorkFormula> work_formula(const std::string& chip, const std::string& math_class);

// One range's figures from its metrics' values (metric -> value). A metric missing or NaN is named
// in `unreadable`: the figures it takes part in are then unknown, never zero.
struct WorkFigures {
  double target_ops = 0;
  double other_math_flops = 0;  // a linear sum: may read slightly below 0 (the caller clamps)
  double tma_load_bytes = 0;
  double tma_store_bytes = 0;
  double global_load_bytes = 0;
  std::vector<std::string> unreadable;
};
WorkFigures work_figures(const WorkFormula& f, const std::map<std::string, double>& values);

}  // namespace ptxbench

// The work a call's kernels did, read from the GPU's hardware counters by CUPTI's range profiler
// (range_profiler.h): every metric of the chip's work formula for the problem's operand type
// (probes/work_metrics.h: the target family's operations, the TMA's bytes, every global byte read,
// and everything else that could have done math). Nothing is patched and no kernel is replayed, so
// every timed call can be measured: a candidate that runs its target path only when it thinks it is
// being counted shows no target work in the calls that are timed.
#pragma once
#include <cuda.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "probes/work_metrics.h"
#include "runner/integrity/range_profiler.h"

namespace ptxbench {

// One range's values by metric (NaN: not collected).
struct CallWork {
  std::string range;
  std::map<std::string, double> values;
};

class WorkCounters {
 public:
  // Null with `why` set when this GPU, driver or chip cannot count the formula of `math_class` (the
  // problem's operand type: bf16, fp16, fp8) in one pass: a tool's reason, never the candidate's.
  // `ctx` null: the calling thread's current context. `max_ranges` bounds the ranges of one session.
  static std::unique_ptr<WorkCounters> create(CUcontext ctx, int device, size_t max_ranges,
                                              const std::string& math_class, std::string* why);

  const std::string& chip() const { return profiler_->chip(); }
  const WorkFormula& formula() const { return formula_; }
  void start() { profiler_->start(); }                             // a session (sessions may repeat)
  void push(const std::string& range) { profiler_->push(range); }  // same-named ranges of a session add up
  void pop() { profiler_->pop(); }
  std::vector<CallWork> stop();  // after the session's work completed: each range's values

 private:
  WorkCounters() = default;
  std::unique_ptr<RangeProfiler> profiler_;
  WorkFormula formula_;
};

// Empty when CUPTI's host side (no GPU) accepts the chip's formula for `math_class` and one pass
// holds it, else why not.
std::string check_work_formula(const std::string& chip, const std::string& math_class);

}  // namespace ptxbench

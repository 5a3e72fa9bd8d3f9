// Executed instructions of a call, counted in the worker itself (CUPTI SASS metrics:
// smsp__sass_inst_executed per instruction, by lazy patching of each kernel at its first launch
// while counting is on). The counted call is an ordinary checked call of the same process, so a
// candidate cannot tell it from the others by its environment or by an injected tool.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench::integrity {

struct ExecutedInstruction {
  std::string function;  // mangled kernel name
  uint32_t pc_offset = 0;
  uint64_t executed = 0;  // warp-level executions
};

class SassCounter {
 public:
  // Null with `why` set when this GPU or driver cannot count (a tool reason, never the candidate's).
  static std::unique_ptr<SassCounter> create(int device, std::string* why);
  ~SassCounter();
  // Counting on for kernels launched from now. Every loaded function is patched here, at the
  // enable (CUPTI: "all the functions will be patched regardless of their execution"), not at its
  // first launch inside the counted call: lazy patching made that launch take far longer, a tell
  // the candidate could time from the host. The counts then hold the harness's kernels too:
  // the caller keeps the candidate's (candidate_counts in runner/timing.h).
  void begin();
  std::vector<ExecutedInstruction> end();     // after the counted work completed; counting off

 private:
  SassCounter() = default;
  uint32_t device_ = 0;
  uint64_t metric_id_ = 0;
  bool enabled_ = false;
};

}  // namespace ptxbench::integrity

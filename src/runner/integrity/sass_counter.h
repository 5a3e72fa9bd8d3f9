// Executed instructions of a call, counted in the worker itself (CUPTI SASS metrics:
// smsp__sass_inst_executed per instruction, by lazy patching of each kernel at its first launch
// while counting is on). The counted call is an ordinary checked call of the same process, so a
// candidate cannot tell it from the others by its environment or by an injected tool.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench {

struct ExecutedInstruction {
  std::string function;  // mangled kernel name
  uint32_t pc_offset = 0;
  uint64_t executed = 0;   // warp-level executions
  uint32_t cubin_crc = 0;  // CUPTI's id of the module's cubin (cubin_crc() of its bytes)
};

// CUPTI's CRC of a cubin, as the counts name the cubin each instruction is in; 0 when CUPTI cannot
// tell. Several cubins may define kernels of one name (a Triton kernel's specializations): the CRC
// tells whose offsets a count is at.
uint32_t cubin_crc(const std::string& cubin);

class SassCounter {
 public:
  // Null with `why` set when this GPU or driver cannot count (a tool reason, never the candidate's).
  static std::unique_ptr<SassCounter> create(int device, std::string* why);
  ~SassCounter();
  // Counting on for kernels launched from now: each is patched at its first launch in the range
  // (patching every loaded function at the enable failed on the H200 with cuBLASLt loaded), so that
  // launch takes longer on the host than in an uncounted call. Only launches inside the range are
  // patched and counted, the harness's too when it launches there: the caller keeps the
  // candidate's (candidate_counts in runner/counted_call.h).
  void begin();
  std::vector<ExecutedInstruction> end();  // after the counted work completed; counting off

 private:
  SassCounter() = default;
  uint32_t device_ = 0;
  uint64_t metric_id_ = 0;
  bool enabled_ = false;
};

}  // namespace ptxbench

// The work a call's kernels did, read from the GPU's hardware counters by CUPTI's range profiler:
// the operations of the target tensor family (warpgroup MMA on Hopper, tcgen05 MMA on Blackwell)
// and the bytes the tensor memory accelerator moved. Nothing is patched and no kernel is replayed,
// so every timed call can be measured: a candidate that runs its target path only when it thinks it
// is being counted shows no target work in the calls that are timed.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench::integrity {

// The counters that make up each figure on one chip (CUPTI's chip name: "GH100", "GB100"...).
struct WorkMetrics {
  std::vector<std::string> tensor_ops;       // summed: the target family's operations by source type (an
                                             // operation is a multiply or an add), in the order they are
                                             // worth a pass's room
  std::string tensor_insts;                  // the target family's instructions of every type: shows work
                                             // of a type the pass had no room to count
  std::vector<std::string> tma_load_bytes;   // summed: global -> shared bytes by the TMA
  std::vector<std::string> tma_store_bytes;  // summed: shared -> global bytes by the TMA (stores and reductions)
  // The most FLOPs other pipes could have done: warp instructions of the FMA and FP64 pipes, each
  // weighed by the FLOPs a full warp of its kind does at most (64 for FFMA and DFMA; an HFMA2, also
  // counted by the FMA pipe, 64 more). Integer and address work runs there too: an upper bound.
  std::vector<std::pair<std::string, double>> other_math;
  std::vector<std::string> all() const;
};

// Empty when the chip is not one this harness has a metric list for (the caller says why).
WorkMetrics work_metrics_for_chip(const std::string& chip);

// What one pass of the hardware counters can collect: no call is ever replayed, so the metrics must
// fit one pass, or those of the other passes read NaN (on GH100 the five tensor types and the TMA's
// need two). The TMA's bytes and the instruction count always; then each tensor type in the chip's
// order while the pass still holds it, those whose name holds one of `first` (a source type such as
// "fp8": the problem's operands) tried before the rest. CUPTI's host side decides, with no GPU;
// `availability` is the device's counter availability image, or null for the chip's full set.
struct OnePassMetrics {
  WorkMetrics metrics;                 // what is collected
  std::vector<std::string> uncounted;  // the chip's tensor types left out (no room in the pass)
  size_t passes_of_the_full_list = 0;  // what the chip's whole list would have needed
};
OnePassMetrics one_pass_work_metrics(const std::string& chip, const uint8_t* availability = nullptr,
                                     const std::vector<std::string>& first = {});  // throws

// Empty when CUPTI's host side (no GPU needed) accepts the chip's metric list and one pass holds the
// TMA's, the instruction count and at least one tensor type, else why not. The other pipes' counters
// go in after the tensor types where the pass still holds them.
std::string check_work_metrics(const std::string& chip);

// One range's figures. A metric that read NaN (not collected) is named in `unreadable` and left out
// of its sum.
struct CallWork {
  std::string range;
  double tensor_ops = 0;
  double tensor_insts = 0;
  double tma_load_bytes = 0;
  double tma_store_bytes = 0;
  double other_math_flops = 0;  // WorkMetrics::other_math's bound
  std::vector<std::string> unreadable;
};

class WorkCounters {
 public:
  // Null with `why` set when this GPU, driver or chip cannot count (a tool reason, never the
  // candidate's). `ctx` null: the calling thread's current context. `max_ranges` bounds the ranges
  // of one session; `first` as for one_pass_work_metrics.
  static std::unique_ptr<WorkCounters> create(CUcontext ctx, int device, size_t max_ranges, std::string* why,
                                              const std::vector<std::string>& first = {});
  ~WorkCounters();
  WorkCounters(const WorkCounters&) = delete;
  WorkCounters& operator=(const WorkCounters&) = delete;

  const std::string& chip() const { return chip_; }
  const std::vector<std::string>& uncounted() const;  // tensor types the one pass left out
  void start();                         // a session: ranges may be pushed from now on (sessions may repeat)
  void push(const std::string& range);  // the next work enqueued belongs to this range (same-named
                                        // ranges of one session add up: name each one apart)
  void pop();
  std::vector<CallWork> stop();  // after the session's work completed: each range's figures

 private:
  WorkCounters() = default;
  struct State;
  std::unique_ptr<State> s_;
  std::string chip_;
};

}  // namespace ptxbench::integrity

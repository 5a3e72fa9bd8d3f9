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
#include <vector>

namespace ptxbench::integrity {

// The counters that make up each figure on one chip (CUPTI's chip name: "GH100", "GB100"...).
struct WorkMetrics {
  std::vector<std::string> tensor_ops;       // summed: the target family's operations (2 per multiply-add)
  std::vector<std::string> tma_load_bytes;   // summed: global -> shared bytes by the TMA
  std::vector<std::string> tma_store_bytes;  // summed: shared -> global bytes by the TMA (stores and reductions)
  std::vector<std::string> all() const;
};

// Empty when the chip is not one this harness has a metric list for (the caller says why).
WorkMetrics work_metrics_for_chip(const std::string& chip);

// Empty when CUPTI's host side (no GPU needed) accepts the chip's metric list, else why not: a
// metric name this CUPTI does not know for the chip.
std::string check_work_metrics(const std::string& chip);

// One range's figures (a range is one call).
struct CallWork {
  std::string range;
  double tensor_ops = 0;
  double tma_load_bytes = 0;
  double tma_store_bytes = 0;
};

class WorkCounters {
 public:
  // Null with `why` set when this GPU, driver or chip cannot count (a tool reason, never the
  // candidate's). `max_ranges` bounds the calls of one session.
  static std::unique_ptr<WorkCounters> create(CUcontext ctx, int device, size_t max_ranges, std::string* why);
  ~WorkCounters();
  WorkCounters(const WorkCounters&) = delete;
  WorkCounters& operator=(const WorkCounters&) = delete;

  const std::string& chip() const { return chip_; }
  void start();                         // a session: ranges may be pushed from now on
  void push(const std::string& range);  // the next work enqueued belongs to this range
  void pop();
  std::vector<CallWork> stop();         // after the session's work completed: each range's figures

 private:
  WorkCounters() = default;
  struct State;
  std::unique_ptr<State> s_;
  std::string chip_;
};

}  // namespace ptxbench::integrity

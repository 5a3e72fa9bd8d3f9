// The target work of one shape's timed samples (issue 30), read from the hardware counters with
// nothing patched (runner/integrity/work_counters.h), so what is counted is what was timed:
//   - first, a range over a few library calls alone: the library's work per call;
//   - a range over two whole library samples (inputs, poison, L2 flush, call, regenerated inputs,
//     check), discarded as timings: with the calls' range, the harness's own work per sample (the
//     backward problems regenerate their forward outputs with the library: tensor work; checks
//     read with TMA);
//   - then ONE range over every timed sample, candidate and library alike, opened before the
//     first sample's inputs are enqueued and closed after the last sample's check.
// One range, not one per sample: a range costs about 15 us on the GPU (a 0.16 ms GEMM sample took
// 9% longer with its own range on an H100), which would bias the speedups; one range over all the
// samples costs that once. The judge takes the library's calls and the harness's work out
// (judge/timed_work.h).
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "core/json.h"
#include "runner/integrity/work_counters.h"

namespace ptxbench {

class TimedWork {
 public:
  explicit TimedWork(WorkCounters* counters) : counters_(counters) {}
  bool on() const { return counters_ != nullptr && error_.empty(); }

  // A session, the library's range over `calls` calls of `library_call` (none: 0), the range over
  // `library_samples()` (two whole library samples; empty: none), then the samples' range opens. A
  // tool failure is kept (result() reports it); nothing is thrown.
  void open(int library_calls, const std::function<void()>& library_call, const std::function<void()>& library_samples,
            cudaStream_t s);
  // After the last sample (its work enqueued): the samples' range closes, the session ends once the
  // stream has completed, and the figures are read.
  void close(int candidate_calls, int library_calls_in_range, cudaStream_t s);
  // {"chip", "math_class", "candidate_calls", "library_calls", "samples": work, "library":
  //  {"calls", work}, "library_samples": {"samples": 2, work}, "seconds"} or {"error": the tool's
  //  reason}; null when nothing was counted. A work is {"values": {metric: value or null}}: the
  //  judge applies the chip's formula (probes/work_metrics.h).
  json result() const { return result_; }

 private:
  WorkCounters* counters_;
  int library_calls_ = 0;
  bool library_samples_ = false;
  double seconds_ = 0;  // host time in open() and close(): the accounting's cost for the shape
  std::string error_;
  json result_;
};

json call_work_json(const CallWork& w);

}  // namespace ptxbench

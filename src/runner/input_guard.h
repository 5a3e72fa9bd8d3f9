// Whether a candidate call changed its inputs, judged without trusting anything that lived in
// device memory during the call: after the call the inputs are fingerprinted as the call left
// them, generated again from their seed (which undoes any change), and fingerprinted again; the
// two fingerprints are compared on the host. Fingerprints go to numbered slots so that timed
// samples need no synchronization of their own.
//
// An input a workload restores from a copy it keeps in device memory (Workload::kept_timing_inputs)
// is not generated again from its seed alone, and the copy lived in device memory during the
// call: those inputs are also fingerprinted before the call, and the fingerprints copied to host
// memory before the call can start (stream order); the restored inputs must match them too.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "runner/detail/device_buffer.h"
#include "runner/detail/pinned_buffer.h"
#include "runner/workload.h"

namespace ptxbench {

class InputGuard {
 public:
  void reserve(int slots, size_t inputs);
  // The kept inputs as generated, before the call (a no-op for a workload that keeps none).
  void before_call(const Workload& w, int slot, cudaStream_t s);
  void after_call(const Workload& w, int slot, cudaStream_t s);          // as the call left them
  void after_regeneration(const Workload& w, int slot, cudaStream_t s);  // as generated again
  // Names of the inputs that differed in each slot ("A", "K and dO"; "" none). Synchronizes.
  std::vector<std::string> changed(const Workload& w, int count);

 private:
  void write(const Workload& w, int slot, int which, cudaStream_t s);
  DeviceBuffer<unsigned long long> fp_;      // per slot: after the call, after regeneration
  DeviceBuffer<unsigned long long> before_;  // per slot: the kept inputs before the call
  PinnedBuffer<unsigned long long> before_host_;
  std::vector<std::vector<size_t>> kept_;  // per slot: the inputs fingerprinted before the call
  size_t inputs_ = 0;
  int slots_ = 0;
};

}  // namespace ptxbench

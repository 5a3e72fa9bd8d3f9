// Whether a candidate call changed its inputs, judged without trusting anything that lived in
// device memory during the call: after the call the inputs are fingerprinted as the call left
// them, generated again from their seed (which undoes any change), and fingerprinted again; the
// two fingerprints are compared on the host. Fingerprints go to numbered slots so that timed
// samples need no synchronization of their own.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "runner/detail/device_buffer.h"
#include "runner/workload.h"

namespace ptxbench {

class InputGuard {
 public:
  void reserve(int slots, size_t inputs);
  void after_call(const Workload& w, int slot, cudaStream_t s);          // as the call left them
  void after_regeneration(const Workload& w, int slot, cudaStream_t s);  // as generated again
  // Names of the inputs that differed in each slot ("A", "K and dO"; "" none). Synchronizes.
  std::vector<std::string> changed(const Workload& w, int count);

 private:
  void write(const Workload& w, int slot, int which, cudaStream_t s);
  DeviceBuffer<unsigned long long> fp_;
  size_t inputs_ = 0;
  int slots_ = 0;
};

}  // namespace ptxbench

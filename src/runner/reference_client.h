// The worker's end of the service's reference pool (judge/reference_session.h). Before the
// candidate loads: put() hands over the reference the workload just computed for a fresh set
// (a sealed memory file) and zeroes it here, then seal() says no more will come. After a checked
// call on a pooled set: get() writes that set's reference back into the workload's buffers. So no
// reference of a set exists in this process while candidate code can run before that set's call.
// A refused get (the set was already handed out: something else in the process asked for it)
// throws ReferenceRefused, which the worker reports as forbidden.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/error.h"
#include "runner/workload.h"

namespace ptxbench {

struct ReferenceRefused : Error {
  using Error::Error;
};

class ReferenceClient {
 public:
  explicit ReferenceClient(int socket) : socket_(socket) {}
  // `reference_seconds`: what computing it took here (the pool weighs it against the hand-over).
  void put(const std::string& shape, uint64_t seed, double reference_seconds, Workload& w, cudaStream_t s);
  void seal();
  void get(const std::string& shape, uint64_t seed, Workload& w, cudaStream_t s);

 private:
  int socket_;
};

// Zeroes the workload's reference buffers and marks the reference not ready.
void discard_reference(Workload& w, cudaStream_t s);

}  // namespace ptxbench

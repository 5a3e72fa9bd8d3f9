// Which GPU work a host call enqueues, without running it: the call is recorded by stream capture
// on a private stream and the captured graph is walked. Baselines use it to report, and check,
// which library kernels actually run (e.g. that cuDNN's SDPA plan is one fused attention kernel).
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace ptxbench {

struct EnqueuedWork {
  std::vector<std::string> kernels;  // mangled kernel names, in graph order
  int memsets = 0, memcpys = 0, other = 0;
};

// Captures enqueue(stream) on a private capture stream and lists what it launched. Throws Error
// (with the CUDA error) if the call cannot be captured, e.g. because it synchronizes.
EnqueuedWork capture_enqueued_work(const std::function<void(cudaStream_t)>& enqueue);

}  // namespace ptxbench

// The worker's side of MHA-Fwd and MHA-Fwd-Causal (workload "mha_fwd", option causal): the shared
// attention forward workload (common/attention/forward_workload.h) on dims B, H, S, D, calling
// ptxbench_mha_fwd.
#include "common/attention/forward_workload.h"
#include "common/attention/workload_support.h"
#include "interface.h"

namespace ptxbench {
namespace {

using ForwardFn = decltype(&ptxbench_mha_fwd);

class MhaForwardWorkload final : public attention::ForwardWorkload {
 public:
  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<ForwardFn>(entry)(q(), k(), v(), o(), lse(), d().B, d().H, d().S, d().D, s);
  }

 protected:
  attention::Dims dims(const WorkloadShape& shape, bool causal) const override {
    return attention::dims_of(shape, causal);
  }
};

PTXBENCH_REGISTER_WORKLOAD("mha_fwd", MhaForwardWorkload, "cudnn");

}  // namespace
}  // namespace ptxbench

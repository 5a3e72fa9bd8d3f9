// The worker's side of MHA-Bwd and MHA-Bwd-Causal (workload "mha_bwd", option causal): the shared
// attention backward workload (common/attention/backward_workload.h) on dims B, H, S, D, calling
// ptxbench_mha_bwd.
#include "common/attention/backward_workload.h"
#include "common/attention/workload_support.h"
#include "interface.h"

namespace ptxbench {
namespace {

using BackwardFn = decltype(&ptxbench_mha_bwd);

class MhaBackwardWorkload final : public attention::BackwardWorkload {
 public:
  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<BackwardFn>(entry)(q(), k(), v(), o(), d_o(), lse(), dq(), dk(), dv(), d().B, d().H, d().S,
                                               d().D, workspace(), workspace_bytes(), s);
  }

 protected:
  attention::Dims dims(const WorkloadShape& shape, bool causal) const override {
    return attention::dims_of(shape, causal);
  }
};

PTXBENCH_REGISTER_WORKLOAD("mha_bwd", MhaBackwardWorkload, "cudnn");

}  // namespace
}  // namespace ptxbench

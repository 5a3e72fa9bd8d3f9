// The worker's side of GQA-Bwd (workload "gqa_bwd", option causal): the shared attention backward
// workload (common/attention/backward_workload.h) on dims B, Hkv, G, S, D (Hq = G * Hkv query heads;
// dK and dV sum over the G query heads of each group), calling ptxbench_gqa_bwd.
#include "common/attention/backward_workload.h"
#include "common/attention/workload_support.h"
#include "interface.h"

namespace ptxbench {
namespace {

using BackwardFn = decltype(&ptxbench_gqa_bwd);

class GqaBackwardWorkload final : public attention::BackwardWorkload {
 public:
  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<BackwardFn>(entry)(q(), k(), v(), o(), d_o(), lse(), dq(), dk(), dv(), d().B, d().H,
                                               d().Hkv, d().S, d().D, workspace(), workspace_bytes(), s);
  }

 protected:
  attention::Dims dims(const WorkloadShape& shape, bool causal) const override {
    return attention::gqa_dims_of(shape, causal);
  }
};

PTXBENCH_REGISTER_WORKLOAD("gqa_bwd", GqaBackwardWorkload, "cudnn");

}  // namespace
}  // namespace ptxbench

// The worker's side of GQA-Fwd (workload "gqa_fwd", option causal): the shared attention forward
// workload (common/attention/forward_workload.h) on dims B, Hkv, G, S, D (Hq = G * Hkv query heads),
// calling ptxbench_gqa_fwd.
#include "common/attention/forward_workload.h"
#include "common/attention/workload_support.h"
#include "interface.h"

namespace ptxbench {
namespace {

using ForwardFn = decltype(&ptxbench_gqa_fwd);

class GqaForwardWorkload final : public attention::ForwardWorkload {
 public:
  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<ForwardFn>(entry)(q(), k(), v(), o(), lse(), d().B, d().H, d().Hkv, d().S, d().D, s);
  }

 protected:
  attention::Dims dims(const WorkloadShape& shape, bool causal) const override {
    return attention::gqa_dims_of(shape, causal);
  }
};

PTXBENCH_REGISTER_WORKLOAD("gqa_fwd", GqaForwardWorkload, "cudnn");

}  // namespace
}  // namespace ptxbench

// The worker's side of an attention forward problem (MHA-Fwd[-Causal], GQA-Fwd): inputs, the fp32
// reference, the full check of O and LSE, the sampled-rows check of every timed call, and the cuDNN
// SDPA baseline. Q, O [B,H,S,D], K, V [B,Hkv,S,D] bf16, LSE [B,H,S] fp32. A problem's workload.cu
// derives from it and says only how its shape reads as Dims and how its entry point is called.
#pragma once
#include <cuda_bf16.h>

#include "common/attention/attention_dims.h"
#include "common/attention/cudnn_sdpa.h"
#include "common/attention/sampled_rows.h"
#include "runner/detail/device_buffer.h"
#include "runner/workload.h"

namespace ptxbench::attention {

class ForwardWorkload : public Workload {
 public:
  void configure(const json& options, const json& tolerances) override;
  void prepare(const WorkloadShape& shape) override;
  void generate_inputs(uint64_t seed, cudaStream_t s) override;
  std::vector<InputView> inputs() const override;
  void poison_outputs(cudaStream_t s) override;
  void call_baseline(cudaStream_t s) override;
  json baseline_info() const override;
  void compute_reference(cudaStream_t s) override;
  std::vector<ReferenceBuffer> reference_buffers() override;
  void set_reference_ready(bool ready) override { have_reference_ = ready; }
  json validate_reference_fp64(cudaStream_t s) override;
  CheckOutcome check(const json& tolerances, cudaStream_t s) override;
  void reset_timed_checks(int capacity) override;
  void check_timed_call(int slot, uint64_t secret, cudaStream_t s) override;
  std::vector<TimedCheck> timed_check_results(int count) override;
  void snapshot_outputs(cudaStream_t s) override;
  bool snapshot_matches_outputs() override;
  std::string math_class() const override { return "bf16"; }

 protected:
  // The problem's shape as attention dims (e.g. dims_of or gqa_dims_of from workload_support.h).
  virtual Dims dims(const WorkloadShape& shape, bool causal) const = 0;

  const Dims& d() const { return d_; }
  const __nv_bfloat16* q() const { return Q_.get(); }
  const __nv_bfloat16* k() const { return K_.get(); }
  const __nv_bfloat16* v() const { return V_.get(); }
  __nv_bfloat16* o() { return O_.get(); }
  float* lse() { return LSE_.get(); }

 private:
  SdpaShape sdpa_shape() const { return {d_.B, d_.H, d_.S, d_.D, d_.causal, d_.kv_heads_per_batch()}; }

  bool causal_ = false;
  json tolerances_ = json::object();
  Dims d_;
  DeviceBuffer<__nv_bfloat16> Q_, K_, V_, O_, shadow_o_;
  DeviceBuffer<float> LSE_, ref_o_, ref_lse_, exp_o_, exp_lse_, shadow_lse_, row_scratch_;
  DeviceBuffer<uint32_t> rows_;
  DeviceBuffer<TimedSlot> slots_;
  bool have_reference_ = false;
  CudnnSdpa sdpa_;
};

}  // namespace ptxbench::attention

// The worker's side of an attention backward problem (MHA-Bwd[-Causal], GQA-Bwd): inputs (O and
// LSE made consistent with Q, K, V by the fp32 forward reference), the fp32 reference gradients, the
// full check of dQ, dK, dV, the sampled-rows check of every timed call, a garbage-filled workspace
// before every call, and the cuDNN SDPA backward baseline. Q, O, dO, dQ [B,H,S,D], K, V, dK, dV
// [B,Hkv,S,D] bf16 (dK and dV sum over the query heads of each group), LSE [B,H,S] fp32, workspace
// 4*B*H*S*(D+1) bytes. A problem's workload.cu derives from it and says only how its shape reads as
// Dims and how its entry point is called.
#pragma once
#include <cuda_bf16.h>

#include <string>

#include "common/attention/attention_dims.h"
#include "common/attention/cudnn_sdpa.h"
#include "common/attention/sampled_rows.h"
#include "runner/detail/device_buffer.h"
#include "runner/workload.h"

namespace ptxbench::attention {

class BackwardWorkload : public Workload {
 public:
  void configure(const json& options, const json& tolerances) override;
  void prepare(const WorkloadShape& shape) override;
  void generate_inputs(uint64_t seed, cudaStream_t s) override;
  void generate_timing_inputs(uint64_t seed, cudaStream_t s) override;
  std::vector<std::string> kept_timing_inputs() const override;
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
  const __nv_bfloat16* o() const { return O_.get(); }
  const __nv_bfloat16* d_o() const { return dO_.get(); }
  const float* lse() const { return LSE_.get(); }
  __nv_bfloat16* dq() { return dQ_.get(); }
  __nv_bfloat16* dk() { return dK_.get(); }
  __nv_bfloat16* dv() { return dV_.get(); }
  void* workspace() { return workspace_.get(); }
  size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  SdpaShape sdpa_shape() const { return {d_.B, d_.H, d_.S, d_.D, d_.causal, d_.kv_heads_per_batch()}; }
  void fill_random(uint64_t seed, cudaStream_t s);

  bool causal_ = false;
  json tolerances_ = json::object();
  Dims d_;
  DeviceBuffer<__nv_bfloat16> Q_, K_, V_, O_, dO_, dQ_, dK_, dV_, shadow_dq_, shadow_dk_, shadow_dv_;
  DeviceBuffer<float> LSE_, delta_, o32_, ref_dq_, ref_dk_, ref_dv_, exp_dq_, exp_dk_, exp_dv_, workspace_,
      row_scratch_;
  size_t workspace_bytes_ = 0;
  std::string timing_inputs_fallback_;  // why cuDNN's forward could not make the timed inputs, if it could not
  // O and LSE of the last timed sample's seed, as cuDNN's forward made them (restored for its regeneration).
  DeviceBuffer<__nv_bfloat16> kept_o_;
  DeviceBuffer<float> kept_lse_;
  uint64_t kept_seed_ = 0;
  bool kept_valid_ = false;
  uint64_t poisoned_ = 0;
  DeviceBuffer<uint32_t> q_rows_, k_rows_;
  DeviceBuffer<TimedSlot> slots_;
  bool have_reference_ = false;
  CudnnSdpa sdpa_;
};

}  // namespace ptxbench::attention

// The worker's side of MHA-Fwd and MHA-Fwd-Causal (workload "mha_fwd", option causal): inputs,
// the fp32 reference, the full check of O and LSE, the sampled-rows check of every timed call,
// and the cuDNN SDPA baseline.
#include <cuda_bf16.h>

#include "common/attention/cudnn_sdpa.h"
#include "common/attention/reference.h"
#include "common/attention/reference_fp64.h"
#include "common/attention/sampled_rows.h"
#include "common/attention/workload_support.h"
#include "interface.h"
#include "runner/detail/device_buffer.h"
#include "runner/device_ops.h"
#include "runner/workload.h"

namespace ptxbench {
namespace {

using namespace attention;
using ForwardFn = decltype(&ptxbench_mha_fwd);

constexpr int kSampledRows = 64;

class MhaForwardWorkload final : public Workload {
 public:
  void configure(const json& options, const json& tolerances) override {
    causal_ = causal_option(options);
    tolerances_ = tolerances;
  }

  void prepare(const WorkloadShape& shape) override {
    d_ = dims_of(shape, causal_);
    for (auto* b : {&Q_, &K_, &V_, &O_}) b->ensure(d_.elements());
    LSE_.ensure(d_.rows());
    have_reference_ = false;
  }

  // Q and K in [-2, 2] give scores with a standard deviation of about 1.3: a peaked softmax.
  void generate_inputs(uint64_t seed, cudaStream_t s) override {
    fill_uniform_bf16(Q_.get(), d_.elements(), seed * 3 + 1, -2.f, 2.f, s);
    fill_uniform_bf16(K_.get(), d_.elements(), seed * 3 + 2, -2.f, 2.f, s);
    fill_uniform_bf16(V_.get(), d_.elements(), seed * 3 + 3, -1.f, 1.f, s);
    have_reference_ = false;
  }

  std::vector<InputView> inputs() const override {
    const size_t n = d_.elements() * 2;
    return {{"Q", Q_.get(), n}, {"K", K_.get(), n}, {"V", V_.get(), n}};
  }

  void poison_outputs(cudaStream_t s) override {
    PTXBENCH_CUDA(cudaMemsetAsync(O_.get(), 0xFF, d_.elements() * 2, s));  // bf16 NaN
    PTXBENCH_CUDA(cudaMemsetAsync(LSE_.get(), 0xFF, d_.rows() * 4, s));    // fp32 NaN
  }

  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<ForwardFn>(entry)(Q_.get(), K_.get(), V_.get(), O_.get(), LSE_.get(), d_.B, d_.H, d_.S,
                                              d_.D, s);
  }

  void call_baseline(cudaStream_t s) override {
    sdpa_.forward({d_.B, d_.H, d_.S, d_.D, d_.causal}, Q_.get(), K_.get(), V_.get(), O_.get(), LSE_.get(), s);
  }

  json baseline_info() const override {
    return {{"library", "cuDNN"}, {"operation", "SDPA forward (fused flash attention), generate_stats"},
            {"version", sdpa_.version()}, {"loaded_from", sdpa_.library_path()}, {"compute", "fp32, bf16 I/O"},
            {"plans", sdpa_plans_json(sdpa_, "fwd")}, {"kernels", sdpa_kernels_json(sdpa_, "fwd")}};
  }

  void compute_reference(cudaStream_t s) override {
    ref_o_.ensure(d_.elements());
    ref_lse_.ensure(d_.rows());
    reference_forward(d_, Q_.get(), K_.get(), V_.get(), ref_o_.get(), ref_lse_.get(), s);
    have_reference_ = true;
  }

  json validate_reference_fp64(cudaStream_t s) override {
    if (!have_reference_) fail("validate_reference_fp64 before compute_reference");
    const auto q = download(Q_.get(), d_.elements(), s), k = download(K_.get(), d_.elements(), s),
               v = download(V_.get(), d_.elements(), s);
    const auto exact = forward_fp64(d_, q, k, v);
    const auto o = error_against(download(ref_o_.get(), d_.elements(), s), exact.O);
    const auto lse = error_against(download(ref_lse_.get(), d_.rows(), s), exact.LSE);
    // fp32 with exact bf16 products: errors near 1e-7, far below bf16 rounding (4e-3).
    const bool passed = o.rel_l2 <= 1e-5 && o.max_err_over_rms <= 1e-4 && lse.max_err_over_rms <= 1e-5;
    return {{"O", {{"max_err_over_rms", o.max_err_over_rms}, {"rel_l2_err", o.rel_l2}}},
            {"LSE", {{"max_err_over_rms", lse.max_err_over_rms}, {"rel_l2_err", lse.rel_l2}}},
            {"passed", passed}};
  }

  CheckOutcome check(const json& tolerances, cudaStream_t s) override {
    if (!have_reference_) fail("MHA forward check before compute_reference");
    const auto to = output_tolerance(tolerances, "O"), tl = output_tolerance(tolerances, "LSE");
    auto eo = compare_bf16(O_.get(), ref_o_.get(), d_.elements(), to.rtol, to.atol, s);
    auto el = compare_f32(LSE_.get(), ref_lse_.get(), d_.rows(), tl.rtol, tl.atol, s);
    return combine_checks({judge_attention_output("O", eo, to, d_, d_.D), judge_attention_output("LSE", el, tl, d_, 1)});
  }

  void reset_timed_checks(int capacity) override {
    slots_.ensure(capacity);
    PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(TimedSlot) * capacity));
  }

  // Rows drawn from `secret`, which exists only after the call.
  void check_timed_call(int slot, uint64_t secret, cudaStream_t s) override {
    rows_.ensure(kSampledRows);
    exp_o_.ensure(size_t(kSampledRows) * d_.D);
    exp_lse_.ensure(kSampledRows);
    draw_rows(secret, d_, kSampledRows, rows_.get(), s);
    expected_forward_rows(d_, Q_.get(), K_.get(), V_.get(), rows_.get(), kSampledRows, exp_o_.get(), exp_lse_.get(), s);
    TimedSlot* st = slots_.get() + slot;
    compare_rows(O_.get(), rows_.get(), kSampledRows, d_.D, exp_o_.get(), output_tolerance(tolerances_, "O").sample(), st, s);
    compare_rows(LSE_.get(), rows_.get(), kSampledRows, 1, exp_lse_.get(), output_tolerance(tolerances_, "LSE").sample(), st, s);
    count_nonfinite(O_.get(), d_.elements(), st, s);
    count_nonfinite(LSE_.get(), d_.rows(), st, s);
  }

  std::vector<TimedCheck> timed_check_results(int count) override {
    return read_timed_slots(slots_.get(), count);
  }

  void snapshot_outputs(cudaStream_t s) override {
    shadow_o_.ensure(d_.elements());
    shadow_lse_.ensure(d_.rows());
    PTXBENCH_CUDA(cudaMemcpyAsync(shadow_o_.get(), O_.get(), d_.elements() * 2, cudaMemcpyDeviceToDevice, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(shadow_lse_.get(), LSE_.get(), d_.rows() * 4, cudaMemcpyDeviceToDevice, s));
  }
  bool snapshot_matches_outputs() override {
    PTXBENCH_CUDA(cudaDeviceSynchronize());
    return count_differing_words(shadow_o_.get(), O_.get(), d_.elements() * 2, nullptr) == 0 &&
           count_differing_words(shadow_lse_.get(), LSE_.get(), d_.rows() * 4, nullptr) == 0;
  }

  std::string math_class() const override { return "bf16"; }

 private:
  bool causal_ = false;
  json tolerances_ = json::object();
  Dims d_;
  DeviceBuffer<__nv_bfloat16> Q_, K_, V_, O_, shadow_o_;
  DeviceBuffer<float> LSE_, ref_o_, ref_lse_, exp_o_, exp_lse_, shadow_lse_;
  DeviceBuffer<uint32_t> rows_;
  DeviceBuffer<TimedSlot> slots_;
  bool have_reference_ = false;
  CudnnSdpa sdpa_;
};

PTXBENCH_REGISTER_WORKLOAD("mha_fwd", MhaForwardWorkload, "cudnn");

}  // namespace
}  // namespace ptxbench

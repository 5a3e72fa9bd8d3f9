#include "common/attention/forward_workload.h"

#include "common/attention/reference.h"
#include "common/attention/reference_fp64.h"
#include "common/attention/workload_support.h"
#include "runner/device_ops.h"

namespace ptxbench::attention {
namespace {

constexpr int kForwardSampledRows = 64;

}  // namespace

void ForwardWorkload::configure(const json& options, const json& tolerances) {
  causal_ = causal_option(options);
  tolerances_ = tolerances;
}

void ForwardWorkload::prepare(const WorkloadShape& shape) {
  d_ = dims(shape, causal_);
  for (auto* b : {&Q_, &O_}) b->ensure(d_.elements());
  for (auto* b : {&K_, &V_}) b->ensure(d_.kv_elements());
  LSE_.ensure(d_.rows());
  have_reference_ = false;
}

// Q and K in [-2, 2] give scores with a standard deviation of about 1.3: a peaked softmax.
void ForwardWorkload::generate_inputs(uint64_t seed, cudaStream_t s) {
  fill_uniform_bf16(Q_.get(), d_.elements(), seed * 3 + 1, -2.f, 2.f, s);
  fill_uniform_bf16(K_.get(), d_.kv_elements(), seed * 3 + 2, -2.f, 2.f, s);
  fill_uniform_bf16(V_.get(), d_.kv_elements(), seed * 3 + 3, -1.f, 1.f, s);
  have_reference_ = false;
}

std::vector<InputView> ForwardWorkload::inputs() const {
  const size_t kv = d_.kv_elements() * 2;
  return {{"Q", Q_.get(), d_.elements() * 2}, {"K", K_.get(), kv}, {"V", V_.get(), kv}};
}

void ForwardWorkload::poison_outputs(cudaStream_t s) {
  PTXBENCH_CUDA(cudaMemsetAsync(O_.get(), 0xFF, d_.elements() * 2, s));  // bf16 NaN
  PTXBENCH_CUDA(cudaMemsetAsync(LSE_.get(), 0xFF, d_.rows() * 4, s));    // fp32 NaN
}

void ForwardWorkload::call_baseline(cudaStream_t s) {
  sdpa_.forward(sdpa_shape(), Q_.get(), K_.get(), V_.get(), O_.get(), LSE_.get(), s);
}

json ForwardWorkload::baseline_info() const {
  return {{"library", "cuDNN"},
          {"operation", "SDPA forward (fused flash attention), generate_stats"},
          {"version", sdpa_.version()},
          {"loaded_from", sdpa_.library_path()},
          {"compute", "fp32, bf16 I/O"},
          {"plans", sdpa_plans_json(sdpa_, "fwd")},
          {"kernels", sdpa_kernels_json(sdpa_, "fwd")}};
}

void ForwardWorkload::compute_reference(cudaStream_t s) {
  ref_o_.ensure(d_.elements());
  ref_lse_.ensure(d_.rows());
  reference_forward(d_, Q_.get(), K_.get(), V_.get(), ref_o_.get(), ref_lse_.get(), s);
  have_reference_ = true;
}

std::vector<ReferenceBuffer> ForwardWorkload::reference_buffers() {
  ref_o_.ensure(d_.elements());
  ref_lse_.ensure(d_.rows());
  return {{"O", ref_o_.get(), d_.elements() * 4}, {"LSE", ref_lse_.get(), d_.rows() * 4}};
}

json ForwardWorkload::validate_reference_fp64(cudaStream_t s) {
  if (!have_reference_) fail("validate_reference_fp64 before compute_reference");
  const auto q = download(Q_.get(), d_.elements(), s), k = download(K_.get(), d_.kv_elements(), s),
             v = download(V_.get(), d_.kv_elements(), s);
  const auto exact = forward_fp64(d_, q, k, v);
  const auto o = error_against(download(ref_o_.get(), d_.elements(), s), exact.O);
  const auto lse = error_against(download(ref_lse_.get(), d_.rows(), s), exact.LSE);
  // fp32 with exact bf16 products: errors near 1e-7, far below bf16 rounding (4e-3).
  const bool passed = o.rel_l2 <= 1e-5 && o.max_err_over_rms <= 1e-4 && lse.max_err_over_rms <= 1e-5;
  return {{"O", {{"max_err_over_rms", o.max_err_over_rms}, {"rel_l2_err", o.rel_l2}}},
          {"LSE", {{"max_err_over_rms", lse.max_err_over_rms}, {"rel_l2_err", lse.rel_l2}}},
          {"passed", passed}};
}

CheckOutcome ForwardWorkload::check(const json& tolerances, cudaStream_t s) {
  if (!have_reference_) fail("attention forward check before compute_reference");
  const auto to = output_tolerance(tolerances, "O"), tl = output_tolerance(tolerances, "LSE");
  auto eo = compare_bf16(O_.get(), ref_o_.get(), d_.elements(), to.rtol, to.atol, s);
  auto el = compare_f32(LSE_.get(), ref_lse_.get(), d_.rows(), tl.rtol, tl.atol, s);
  return combine_checks({judge_attention_output("O", eo, to, d_, d_.D), judge_attention_output("LSE", el, tl, d_, 1)});
}

void ForwardWorkload::reset_timed_checks(int capacity) {
  slots_.ensure(capacity);
  PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(TimedSlot) * capacity));
}

// Rows drawn from `secret`, which exists only after the call.
void ForwardWorkload::check_timed_call(int slot, uint64_t secret, cudaStream_t s) {
  rows_.ensure(kForwardSampledRows);
  exp_o_.ensure(size_t(kForwardSampledRows) * d_.D);
  exp_lse_.ensure(kForwardSampledRows);
  row_scratch_.ensure(row_scratch_floats(d_, kForwardSampledRows));
  draw_rows(secret, d_, kForwardSampledRows, rows_.get(), s);
  expected_forward_rows(d_, Q_.get(), K_.get(), V_.get(), rows_.get(), kForwardSampledRows, exp_o_.get(),
                        exp_lse_.get(), row_scratch_.get(), s);
  TimedSlot* st = slots_.get() + slot;
  compare_rows(O_.get(), rows_.get(), kForwardSampledRows, d_.D, exp_o_.get(),
               output_tolerance(tolerances_, "O").sample(), st, s);
  compare_rows(LSE_.get(), rows_.get(), kForwardSampledRows, 1, exp_lse_.get(),
               output_tolerance(tolerances_, "LSE").sample(), st, s);
  count_nonfinite(O_.get(), d_.elements(), st, s);
  count_nonfinite(LSE_.get(), d_.rows(), st, s);
}

std::vector<TimedCheck> ForwardWorkload::timed_check_results(int count) {
  return read_timed_slots(slots_.get(), count);
}

void ForwardWorkload::snapshot_outputs(cudaStream_t s) {
  shadow_o_.ensure(d_.elements());
  shadow_lse_.ensure(d_.rows());
  PTXBENCH_CUDA(cudaMemcpyAsync(shadow_o_.get(), O_.get(), d_.elements() * 2, cudaMemcpyDeviceToDevice, s));
  PTXBENCH_CUDA(cudaMemcpyAsync(shadow_lse_.get(), LSE_.get(), d_.rows() * 4, cudaMemcpyDeviceToDevice, s));
}

bool ForwardWorkload::snapshot_matches_outputs() {
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  return count_differing_words(shadow_o_.get(), O_.get(), d_.elements() * 2, nullptr) == 0 &&
         count_differing_words(shadow_lse_.get(), LSE_.get(), d_.rows() * 4, nullptr) == 0;
}

}  // namespace ptxbench::attention

#include "common/attention/backward_workload.h"

#include <tuple>

#include "common/attention/reference.h"
#include "common/attention/reference_fp64.h"
#include "common/attention/workload_support.h"
#include "runner/device_ops.h"

namespace ptxbench::attention {
namespace {

constexpr int kBackwardSampledRows = 32;  // query rows for dQ, and as many key rows for dK and dV

json error_json(const Fp64Error& e) { return {{"max_err_over_rms", e.max_err_over_rms}, {"rel_l2_err", e.rel_l2}}; }

}  // namespace

void BackwardWorkload::configure(const json& options, const json& tolerances) {
  causal_ = causal_option(options);
  tolerances_ = tolerances;
}

void BackwardWorkload::prepare(const WorkloadShape& shape) {
  d_ = dims(shape, causal_);
  for (auto* b : {&Q_, &O_, &dO_, &dQ_}) b->ensure(d_.elements());
  for (auto* b : {&K_, &V_, &dK_, &dV_}) b->ensure(d_.kv_elements());
  for (auto* b : {&LSE_, &delta_}) b->ensure(d_.rows());
  o32_.ensure(d_.elements());
  workspace_bytes_ = 4 * d_.rows() * size_t(d_.D + 1);
  workspace_ = DeviceBuffer<float>(workspace_bytes_ / 4);  // exact size: overruns reach the sanitizer
  have_reference_ = false;
  kept_valid_ = false;
}

// Q, K in [-2, 2] (a peaked softmax), V and dO in [-1, 1]; O (bf16) and LSE from the fp32 forward.
void BackwardWorkload::generate_inputs(uint64_t seed, cudaStream_t s) {
  fill_random(seed, s);
  reference_forward(d_, Q_.get(), K_.get(), V_.get(), o32_.get(), LSE_.get(), s);
  round_to_bf16(o32_.get(), O_.get(), d_.elements(), s);
  have_reference_ = false;
}

// Timed samples: the same draws, but O and LSE from cuDNN's fused forward, which is about 30x
// faster than the fp32 reference at S = 8192 (most of the backward's harness time otherwise).
// They agree with the fp32 forward to bf16 accuracy, and the timed-call check derives its expected
// rows (P from LSE, Delta from O) from these very inputs. Correctness checks keep the fp32 path.
// Without a usable cuDNN (e.g. timing without the baseline on a host that lacks it) the fp32 path
// is used instead, and the record says why.
// The harness generates a sample's inputs twice (before the call, and again after it from the same
// seed): the second time O and LSE are restored from the copy the first made, not made by a second
// forward (kept_timing_inputs; the input guard fingerprints them before the call, since the copy is
// in device memory while the candidate runs).
void BackwardWorkload::generate_timing_inputs(uint64_t seed, cudaStream_t s) {
  if (!timing_inputs_fallback_.empty()) return generate_inputs(seed, s);
  fill_random(seed, s);
  have_reference_ = false;
  if (kept_valid_ && kept_seed_ == seed) {
    PTXBENCH_CUDA(cudaMemcpyAsync(O_.get(), kept_o_.get(), d_.elements() * 2, cudaMemcpyDeviceToDevice, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(LSE_.get(), kept_lse_.get(), d_.rows() * 4, cudaMemcpyDeviceToDevice, s));
    return;
  }
  try {
    sdpa_.forward(sdpa_shape(), Q_.get(), K_.get(), V_.get(), O_.get(), LSE_.get(), s);
  } catch (const Error& e) {
    timing_inputs_fallback_ = e.what();
    return generate_inputs(seed, s);
  }
  kept_o_.ensure(d_.elements());
  kept_lse_.ensure(d_.rows());
  PTXBENCH_CUDA(cudaMemcpyAsync(kept_o_.get(), O_.get(), d_.elements() * 2, cudaMemcpyDeviceToDevice, s));
  PTXBENCH_CUDA(cudaMemcpyAsync(kept_lse_.get(), LSE_.get(), d_.rows() * 4, cudaMemcpyDeviceToDevice, s));
  kept_seed_ = seed;
  kept_valid_ = true;
}

std::vector<std::string> BackwardWorkload::kept_timing_inputs() const {
  if (!timing_inputs_fallback_.empty()) return {};
  return {"O", "LSE"};
}

void BackwardWorkload::fill_random(uint64_t seed, cudaStream_t s) {
  fill_uniform_bf16(Q_.get(), d_.elements(), seed * 5 + 1, -2.f, 2.f, s);
  fill_uniform_bf16(K_.get(), d_.kv_elements(), seed * 5 + 2, -2.f, 2.f, s);
  fill_uniform_bf16(V_.get(), d_.kv_elements(), seed * 5 + 3, -1.f, 1.f, s);
  fill_uniform_bf16(dO_.get(), d_.elements(), seed * 5 + 4, -1.f, 1.f, s);
}

std::vector<InputView> BackwardWorkload::inputs() const {
  const size_t n = d_.elements() * 2, kv = d_.kv_elements() * 2;
  return {{"Q", Q_.get(), n}, {"K", K_.get(), kv},  {"V", V_.get(), kv},
          {"O", O_.get(), n}, {"dO", dO_.get(), n}, {"LSE", LSE_.get(), d_.rows() * 4}};
}

void BackwardWorkload::poison_outputs(cudaStream_t s) {
  PTXBENCH_CUDA(cudaMemsetAsync(dQ_.get(), 0xFF, d_.elements() * 2, s));
  for (auto* b : {&dK_, &dV_}) PTXBENCH_CUDA(cudaMemsetAsync(b->get(), 0xFF, d_.kv_elements() * 2, s));
  fill_uniform_f32(workspace_.get(), workspace_bytes_ / 4, 0x6a7ba6eull + ++poisoned_, -1e4f, 1e4f, s);
}

void BackwardWorkload::call_baseline(cudaStream_t s) {
  sdpa_.backward(sdpa_shape(), Q_.get(), K_.get(), V_.get(), O_.get(), dO_.get(), LSE_.get(), dQ_.get(), dK_.get(),
                 dV_.get(), s);
}

json BackwardWorkload::baseline_info() const {
  return {{"library", "cuDNN"},
          {"operation", "SDPA backward (fused flash attention), from O, dO and Stats"},
          {"version", sdpa_.version()},
          {"loaded_from", sdpa_.library_path()},
          {"compute", "fp32, bf16 I/O"},
          {"plans", sdpa_plans_json(sdpa_, "bwd")},
          {"kernels", sdpa_kernels_json(sdpa_, "bwd")},
          {"timed_inputs", timing_inputs_fallback_.empty()
                               ? "O and LSE of every timed sample come from cuDNN's fused forward (plans: " +
                                     sdpa_plans_json(sdpa_, "fwd").dump() + "); correctness uses the fp32 forward"
                               : "O and LSE of timed samples come from the fp32 forward: cuDNN's forward failed (" +
                                     timing_inputs_fallback_ + ")"}};
}

void BackwardWorkload::compute_reference(cudaStream_t s) {
  ref_dq_.ensure(d_.elements());
  for (auto* b : {&ref_dk_, &ref_dv_}) b->ensure(d_.kv_elements());
  row_dots(dO_.get(), O_.get(), delta_.get(), d_.rows(), d_.D, s);
  reference_backward(d_, Q_.get(), K_.get(), V_.get(), dO_.get(), LSE_.get(), delta_.get(), ref_dq_.get(),
                     ref_dk_.get(), ref_dv_.get(), s);
  have_reference_ = true;
}

std::vector<ReferenceBuffer> BackwardWorkload::reference_buffers() {
  ref_dq_.ensure(d_.elements());
  for (auto* b : {&ref_dk_, &ref_dv_}) b->ensure(d_.kv_elements());
  const size_t n = d_.elements() * 4, kv = d_.kv_elements() * 4;
  return {{"dQ", ref_dq_.get(), n}, {"dK", ref_dk_.get(), kv}, {"dV", ref_dv_.get(), kv}};
}

// The gradients against fp64, and the harness's own inputs O (bf16) and LSE against the exact forward.
json BackwardWorkload::validate_reference_fp64(cudaStream_t s) {
  if (!have_reference_) fail("validate_reference_fp64 before compute_reference");
  const size_t n = d_.elements(), kv = d_.kv_elements();
  const auto q = download(Q_.get(), n, s), k = download(K_.get(), kv, s), v = download(V_.get(), kv, s);
  const auto o = download(O_.get(), n, s), g = download(dO_.get(), n, s);
  const auto fwd = forward_fp64(d_, q, k, v);
  const auto bwd = backward_fp64(d_, q, k, v, o, g);
  const auto e_o = error_against(o, fwd.O), e_lse = error_against(download(LSE_.get(), d_.rows(), s), fwd.LSE);
  const auto e_dq = error_against(download(ref_dq_.get(), n, s), bwd.dQ);
  const auto e_dk = error_against(download(ref_dk_.get(), kv, s), bwd.dK);
  const auto e_dv = error_against(download(ref_dv_.get(), kv, s), bwd.dV);
  // fp32 errors are near 1e-7 (dS = P * (dP - Delta) cancels a little); O is bf16 (2^-9 relative).
  bool passed = e_lse.max_err_over_rms <= 1e-5 && e_o.rel_l2 <= 4e-3;
  for (const auto* e : {&e_dq, &e_dk, &e_dv}) passed = passed && e->rel_l2 <= 1e-5 && e->max_err_over_rms <= 1e-4;
  return {{"input_O_bf16", error_json(e_o)}, {"input_LSE", error_json(e_lse)}, {"dQ", error_json(e_dq)},
          {"dK", error_json(e_dk)},          {"dV", error_json(e_dv)},         {"passed", passed}};
}

CheckOutcome BackwardWorkload::check(const json& tolerances, cudaStream_t s) {
  if (!have_reference_) fail("attention backward check before compute_reference");
  std::vector<OutputCheck> checks;
  for (auto [name, out, ref, kv_tensor] :
       {std::tuple{"dQ", &dQ_, &ref_dq_, false}, std::tuple{"dK", &dK_, &ref_dk_, true},
        std::tuple{"dV", &dV_, &ref_dv_, true}}) {
    const auto t = output_tolerance(tolerances, name);
    const size_t n = kv_tensor ? d_.kv_elements() : d_.elements();
    auto e = compare_bf16(out->get(), ref->get(), n, t.rtol, t.atol, s);
    checks.push_back(judge_attention_output(name, e, t, d_, d_.D, kv_tensor));
  }
  return combine_checks(checks);
}

void BackwardWorkload::reset_timed_checks(int capacity) {
  slots_.ensure(capacity);
  PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(TimedSlot) * capacity));
}

// Rows drawn from `secret`, which exists only after the call; expectations from the inputs as
// generated again after it.
void BackwardWorkload::check_timed_call(int slot, uint64_t secret, cudaStream_t s) {
  for (auto* b : {&q_rows_, &k_rows_}) b->ensure(kBackwardSampledRows);
  for (auto* b : {&exp_dq_, &exp_dk_, &exp_dv_}) b->ensure(size_t(kBackwardSampledRows) * d_.D);
  row_scratch_.ensure(row_scratch_floats(d_, kBackwardSampledRows));
  draw_rows(secret, d_, kBackwardSampledRows, q_rows_.get(), s);
  draw_kv_rows(secret ^ 0x5eedc0ffeeull, d_, kBackwardSampledRows, k_rows_.get(), s);
  row_dots(dO_.get(), O_.get(), delta_.get(), d_.rows(), d_.D, s);
  expected_dq_rows(d_, Q_.get(), K_.get(), V_.get(), dO_.get(), LSE_.get(), delta_.get(), q_rows_.get(),
                   kBackwardSampledRows, exp_dq_.get(), row_scratch_.get(), s);
  expected_dkdv_rows(d_, Q_.get(), K_.get(), V_.get(), dO_.get(), LSE_.get(), delta_.get(), k_rows_.get(),
                     kBackwardSampledRows, exp_dk_.get(), exp_dv_.get(), row_scratch_.get(), s);
  TimedSlot* st = slots_.get() + slot;
  compare_rows(dQ_.get(), q_rows_.get(), kBackwardSampledRows, d_.D, exp_dq_.get(),
               output_tolerance(tolerances_, "dQ").sample(), st, s);
  compare_rows(dK_.get(), k_rows_.get(), kBackwardSampledRows, d_.D, exp_dk_.get(),
               output_tolerance(tolerances_, "dK").sample(), st, s);
  compare_rows(dV_.get(), k_rows_.get(), kBackwardSampledRows, d_.D, exp_dv_.get(),
               output_tolerance(tolerances_, "dV").sample(), st, s);
  count_nonfinite(dQ_.get(), d_.elements(), st, s);
  for (auto* b : {&dK_, &dV_}) count_nonfinite(b->get(), d_.kv_elements(), st, s);
}

std::vector<TimedCheck> BackwardWorkload::timed_check_results(int count) {
  return read_timed_slots(slots_.get(), count);
}

void BackwardWorkload::snapshot_outputs(cudaStream_t s) {
  shadow_dq_.ensure(d_.elements());
  for (auto* b : {&shadow_dk_, &shadow_dv_}) b->ensure(d_.kv_elements());
  PTXBENCH_CUDA(cudaMemcpyAsync(shadow_dq_.get(), dQ_.get(), d_.elements() * 2, cudaMemcpyDeviceToDevice, s));
  PTXBENCH_CUDA(cudaMemcpyAsync(shadow_dk_.get(), dK_.get(), d_.kv_elements() * 2, cudaMemcpyDeviceToDevice, s));
  PTXBENCH_CUDA(cudaMemcpyAsync(shadow_dv_.get(), dV_.get(), d_.kv_elements() * 2, cudaMemcpyDeviceToDevice, s));
}

bool BackwardWorkload::snapshot_matches_outputs() {
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  return count_differing_words(shadow_dq_.get(), dQ_.get(), d_.elements() * 2, nullptr) == 0 &&
         count_differing_words(shadow_dk_.get(), dK_.get(), d_.kv_elements() * 2, nullptr) == 0 &&
         count_differing_words(shadow_dv_.get(), dV_.get(), d_.kv_elements() * 2, nullptr) == 0;
}

}  // namespace ptxbench::attention

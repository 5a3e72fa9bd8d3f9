// The worker's side of the GEMM-FP8 problem: e4m3 inputs with per-tensor fp32 scales, the fp32
// reference, the full check, the Freivalds check of every timed call (the scales applied to the
// projection), and the cuBLASLt FP8 baseline (scale pointers, fast accumulation off).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cmath>

#include "common/gemm/cublaslt_gemm.h"
#include "common/gemm/fill_e4m3.h"
#include "common/gemm/freivalds.h"
#include "common/gemm/gemm_dims.h"
#include "common/gemm/reference_gemm.h"
#include "interface.h"
#include "runner/detail/device_buffer.h"
#include "runner/device_ops.h"
#include "runner/workload.h"

namespace ptxbench {
namespace {

using Fp8GemmFn = decltype(&ptxbench_gemm_fp8);

// Quantized values in [-256, 256] (e4m3: 3 mantissa bits), scales in [0.5, 1.5] / 256: the
// dequantized operands lie in [-1.5, 1.5], like a tensor quantized with scale = amax / 256, and
// scale_a * scale_b is far from 1 (a kernel that ignores a scale is off by a factor of 100 or more).
constexpr float kQuantRange = 256.f;

float e4m3_to_float(uint8_t v) {
  __nv_fp8_e4m3 x;
  x.__x = v;
  return float(x);
}

class GemmFp8Workload final : public Workload {
 public:
  GemmFp8Workload() : lt_({gemm::Operand::e4m3, false}) {}

  void prepare(const WorkloadShape& shape) override {
    d_ = gemm::dims_of(shape);
    A_.ensure(d_.a_elements());
    B_.ensure(d_.b_elements());
    C_.ensure(d_.c_elements());
    scale_a_.ensure(1);  // separate allocations: cuBLASLt refuses (status 15) a scale pointer
    scale_b_.ensure(1);  // 4 bytes past another, as one two-float buffer gave (H200, cuBLAS 13.0)
    lt_.reset();
    have_reference_ = false;
  }

  void generate_inputs(uint64_t seed, cudaStream_t s) override {
    gemm::fill_uniform_e4m3(A_.get(), d_.a_elements(), seed * 4 + 1, -kQuantRange, kQuantRange, s);
    gemm::fill_uniform_e4m3(B_.get(), d_.b_elements(), seed * 4 + 2, -kQuantRange, kQuantRange, s);
    fill_uniform_f32(scale_a(), 1, seed * 4 + 3, 0.5f / kQuantRange, 1.5f / kQuantRange, s);
    fill_uniform_f32(scale_b(), 1, seed * 4 + 4, 0.5f / kQuantRange, 1.5f / kQuantRange, s);
    have_reference_ = false;
  }

  std::vector<InputView> inputs() const override {
    return {{"A", A_.get(), d_.a_elements()},
            {"B", B_.get(), d_.b_elements()},
            {"scale_a", scale_a(), 4},
            {"scale_b", scale_b(), 4}};
  }

  void poison_outputs(cudaStream_t s) override {
    PTXBENCH_CUDA(cudaMemsetAsync(C_.get(), 0xFF, d_.c_elements() * 2, s));  // 0xFFFF is a bf16 NaN
  }

  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<Fp8GemmFn>(entry)(reinterpret_cast<const __nv_fp8_e4m3*>(A_.get()),
                                              reinterpret_cast<const __nv_fp8_e4m3*>(B_.get()), scale_a(), scale_b(),
                                              C_.get(), d_.M, d_.N, d_.K, s);
  }

  void call_baseline(cudaStream_t s) override {
    lt_.run(A_.get(), B_.get(), C_.get(), d_, scale_a(), scale_b(), nullptr, s);
  }

  json baseline_info() const override { return lt_.info(); }

  void compute_reference(cudaStream_t s) override {
    ref_.ensure(d_.c_elements());
    gemm::reference_gemm(gemm::Operand::e4m3, A_.get(), B_.get(), ref_.get(), d_, {scale_a(), scale_b()}, s);
    have_reference_ = true;
  }

  std::vector<ReferenceBuffer> reference_buffers() override {
    ref_.ensure(d_.c_elements());
    return {{"C", ref_.get(), d_.c_elements() * 4}};
  }
  void set_reference_ready(bool ready) override { have_reference_ = ready; }

  json validate_reference_fp64(cudaStream_t s) override {
    if (!have_reference_) fail("validate_reference_fp64 before compute_reference");
    std::vector<uint8_t> a(d_.a_elements()), b(d_.b_elements());
    std::vector<float> ref(d_.c_elements()), sc(2);
    PTXBENCH_CUDA(cudaMemcpyAsync(a.data(), A_.get(), a.size(), cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(b.data(), B_.get(), b.size(), cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(ref.data(), ref_.get(), ref.size() * 4, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(&sc[0], scale_a(), 4, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(&sc[1], scale_b(), 4, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaStreamSynchronize(s));
    std::vector<float> fa(a.size()), fb(b.size());
    for (size_t i = 0; i < a.size(); ++i) fa[i] = e4m3_to_float(a[i]);
    for (size_t i = 0; i < b.size(); ++i) fb[i] = e4m3_to_float(b[i]);
    const double scale = double(sc[0]) * double(sc[1]);
    double max_rel = 0, sum_sq_err = 0, sum_sq = 0;
    for (int m = 0; m < d_.M; ++m)
      for (int n = 0; n < d_.N; ++n) {
        double acc = 0, mag = 0;
        for (int k = 0; k < d_.K; ++k) {
          const double p = double(fa[size_t(m) * d_.K + k]) * double(fb[size_t(n) * d_.K + k]);
          acc += p;
          mag += std::fabs(p);
        }
        acc *= scale, mag *= scale;
        const double err = std::fabs(ref[size_t(m) * d_.N + n] - acc);
        max_rel = std::max(max_rel, err / std::max(mag, 1e-30));  // error relative to sum |a_k b_k| (scaled)
        sum_sq_err += err * err;
        sum_sq += acc * acc;
      }
    const double rel_l2 = std::sqrt(sum_sq_err / std::max(sum_sq, 1e-300));
    // e4m3 products are exact in fp32; fp32 accumulation over K terms, then two fp32 roundings of the
    // scale: error well under (K + 2) * 2^-24 of sum |a_k b_k|.
    const bool passed = max_rel <= (d_.K + 2) * std::ldexp(1.0, -24) && rel_l2 < 1e-5;
    return {{"max_err_over_sum_abs_products", max_rel},
            {"rel_l2_err", rel_l2},
            {"scale_a", sc[0]},
            {"scale_b", sc[1]},
            {"passed", passed}};
  }

  CheckOutcome check(const json& tolerances, cudaStream_t s) override {
    if (!have_reference_) fail("GEMM-FP8 check before compute_reference");
    const auto& t = tolerances.at("C");
    auto e = compare_bf16(C_.get(), ref_.get(), d_.c_elements(), t.at("rtol"), t.at("atol"), s);
    auto judged = judge_output("C", e, t.at("rtol"), t.at("atol"), t.at("max_rel_l2"), d_.N);
    return {judged.passed, judged.summary, {{"outputs", json::array({judged.detail})}}};
  }

  void reset_timed_checks(int capacity) override { freivalds_.reset(capacity); }

  // Freivalds with a sign vector drawn from `secret`, which exists only after the call.
  void check_timed_call(int slot, uint64_t secret, cudaStream_t s) override {
    freivalds_.check(gemm::Operand::e4m3, A_.get(), B_.get(), C_.get(), d_, scale_a(), scale_b(), secret, slot, s);
  }

  std::vector<TimedCheck> timed_check_results(int count) override { return freivalds_.results(count); }

  void snapshot_outputs(cudaStream_t s) override {
    shadow_.ensure(d_.c_elements());
    PTXBENCH_CUDA(cudaMemcpyAsync(shadow_.get(), C_.get(), d_.c_elements() * 2, cudaMemcpyDeviceToDevice, s));
  }
  bool snapshot_matches_outputs() override {
    PTXBENCH_CUDA(cudaDeviceSynchronize());
    return count_differing_words(shadow_.get(), C_.get(), d_.c_elements() * 2, nullptr) == 0;
  }

  // The floor uses the dense fp8 tensor-core rate (twice bf16 on Hopper).
  std::string math_class() const override { return "fp8"; }

 private:
  float* scale_a() const { return scale_a_.get(); }
  float* scale_b() const { return scale_b_.get(); }

  gemm::Dims d_;
  DeviceBuffer<uint8_t> A_, B_;
  DeviceBuffer<float> scale_a_, scale_b_, ref_;
  DeviceBuffer<__nv_bfloat16> C_, shadow_;
  bool have_reference_ = false;
  gemm::Freivalds freivalds_;
  gemm::CublasLtGemm lt_;
};

PTXBENCH_REGISTER_WORKLOAD("gemm_fp8", GemmFp8Workload, "cublaslt");

}  // namespace
}  // namespace ptxbench

// The worker's side of the GEMM problem: inputs, the fp32 reference, the full check, the
// randomized (Freivalds) check of every timed call, and the cuBLASLt baseline.
#include <cublasLt.h>
#include <cuda_bf16.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "interface.h"
#include "runner/detail/device_buffer.h"
#include "runner/device_ops.h"
#include "runner/launched_kernels.h"
#include "runner/workload.h"

namespace ptxbench {
namespace {

using GemmFn = decltype(&ptxbench_gemm);

#define PTXBENCH_CUBLAS(call)                                                                      \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                              \
      ::ptxbench::fail(std::string(#call) + " failed: cuBLAS status " + std::to_string(int(st_))); \
  } while (0)

// fp32 SIMT reference: 128x128 tile, 256 threads, 8x8 outputs per thread (strided by 16 so the
// shared-memory reads of a warp hit distinct banks). M, N multiples of 128 and K of 16 (the
// problem's constraints are stricter).
constexpr int RB = 128, RK = 16;
__global__ void __launch_bounds__(256)
    reference_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
  __shared__ float As[RK][RB + 4];
  __shared__ float Bs[RK][RB + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * RB, col0 = blockIdx.x * RB;
  float acc[8][8] = {};
  const int lr = threadIdx.x / 2, lk = (threadIdx.x % 2) * 8;  // each thread loads 8 consecutive k of one row
  for (int k0 = 0; k0 < K; k0 += RK) {
    const uint4 va = *reinterpret_cast<const uint4*>(A + size_t(row0 + lr) * K + k0 + lk);
    const uint4 vb = *reinterpret_cast<const uint4*>(B + size_t(col0 + lr) * K + k0 + lk);
    const __nv_bfloat16* ea = reinterpret_cast<const __nv_bfloat16*>(&va);
    const __nv_bfloat16* eb = reinterpret_cast<const __nv_bfloat16*>(&vb);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      As[lk + e][lr] = __bfloat162float(ea[e]);
      Bs[lk + e][lr] = __bfloat162float(eb[e]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RK; ++k) {
      float a[8], b[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) C[size_t(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = acc[i][j];
}

// Freivalds: with a secret random sign vector r, C·r must equal A·(B^T·r).
__global__ void random_signs(float* r, int n, uint64_t seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint64_t x = seed ^ (uint64_t(i) * 0x9e3779b97f4a7c15ull);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    r[i] = (x >> 63) ? 1.f : -1.f;
  }
}
// s[k] = sum_n B[n,k] r[n]; a block covers 256 k and 64 n, partial sums added atomically.
__global__ void bt_times_r(const __nv_bfloat16* B, const float* r, float* s, int N, int K) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int n0 = blockIdx.y * 64;
  if (k >= K) return;
  float acc = 0;
  for (int n = n0; n < min(n0 + 64, N); ++n) acc += __bfloat162float(B[size_t(n) * K + k]) * r[n];
  atomicAdd(&s[k], acc);
}
// One warp per row: out[m] = sum_k X[m,k] v[k]; with sq, also sum_k X[m,k]^2.
__global__ void rows_times_vec(const __nv_bfloat16* X, const float* v, float* out, float* sq, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const __nv_bfloat16* x = X + size_t(warp) * cols;
  float acc = 0, acc2 = 0;
  for (int c = lane; c < cols; c += 32) {
    float e = __bfloat162float(x[c]);
    acc += e * v[c];
    acc2 += e * e;
  }
  for (int o = 16; o > 0; o /= 2) {
    acc += __shfl_down_sync(0xffffffffu, acc, o);
    acc2 += __shfl_down_sync(0xffffffffu, acc2, o);
  }
  if (lane == 0) {
    out[warp] = acc;
    if (sq) sq[warp] = acc2;
  }
}

struct SlotStatus {
  unsigned bad_rows;
  unsigned nonfinite_rows;
  float worst_ratio;
  unsigned pad;
};

// Row m passes when |(C r)_m - (A B^T r)_m| <= 0.05 ||C_m|| + 1e-4 (|z_m| + 1). bf16 rounding of C
// gives a random-sign error with standard deviation below 0.0023 ||C_m||; a stale or partial C
// differs by about ||C_m||.
__global__ void freivalds_verdict(const float* y, const float* c2, const float* z, int M, SlotStatus* slot) {
  int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M) return;
  float diff = fabsf(y[m] - z[m]);
  float tol = 0.05f * sqrtf(c2[m]) + 1e-4f * (fabsf(z[m]) + 1.f);
  if (!isfinite(y[m]) || !isfinite(c2[m])) {
    atomicAdd(&slot->nonfinite_rows, 1u);
    return;
  }
  if (!(diff <= tol)) atomicAdd(&slot->bad_rows, 1u);
  float ratio = diff / tol;
  atomicMax(reinterpret_cast<unsigned*>(&slot->worst_ratio), __float_as_uint(ratio));
}

class GemmWorkload final : public Workload {
 public:
  GemmWorkload() = default;
  ~GemmWorkload() override {
    destroy_plan();
    if (lt_) cublasLtDestroy(lt_);
  }

  void prepare(const WorkloadShape& shape) override {
    M_ = int(shape.at("M")), N_ = int(shape.at("N")), K_ = int(shape.at("K"));
    A_.ensure(size_t(M_) * K_);
    B_.ensure(size_t(N_) * K_);
    C_.ensure(size_t(M_) * N_);
    destroy_plan();
    have_reference_ = false;
  }

  void generate_inputs(uint64_t seed, cudaStream_t s) override {
    fill_uniform_bf16(A_.get(), size_t(M_) * K_, seed * 2 + 1, -1.f, 1.f, s);
    fill_uniform_bf16(B_.get(), size_t(N_) * K_, seed * 2 + 2, -1.f, 1.f, s);
    have_reference_ = false;
  }

  std::vector<InputView> inputs() const override {
    return {{"A", A_.get(), size_t(M_) * K_ * 2}, {"B", B_.get(), size_t(N_) * K_ * 2}};
  }

  void poison_outputs(cudaStream_t s) override {
    PTXBENCH_CUDA(cudaMemsetAsync(C_.get(), 0xFF, size_t(M_) * N_ * 2, s));  // 0xFFFF is a bf16 NaN
  }

  cudaError_t call_candidate(void* entry, cudaStream_t s) override {
    return reinterpret_cast<GemmFn>(entry)(A_.get(), B_.get(), C_.get(), M_, N_, K_, s);
  }

  void call_baseline(cudaStream_t s) override {
    if (!plan_ready_) {
      const auto t0 = std::chrono::steady_clock::now();
      make_plan();
      // Once per shape, with the plan (the first call is a warm-up, never a timed sample): what
      // cuBLASLt launches, recorded by stream capture (nothing runs).
      const std::string label = "M=" + std::to_string(M_) + " N=" + std::to_string(N_) + " K=" + std::to_string(K_);
      plan_seconds_[label] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!kernels_.count(label))
        kernels_[label] = capture_enqueued_work([&](cudaStream_t capture) { matmul(capture); }).kernels;
    }
    matmul(s);
  }

  json baseline_info() const override {
    json engines = json::object();
    for (const auto& [label, kernels] : kernels_) engines[label] = kernels;
    return {{"library", "cuBLASLt"},           {"version", cublasLtGetVersion()},
            {"compute", "CUBLAS_COMPUTE_32F"}, {"algorithm", "first heuristic result"},
            {"workspace_bytes", kWorkspace},   {"kernels", engines},
            {"plan_seconds", plan_seconds_}};
  }

  void compute_reference(cudaStream_t s) override {
    ref_.ensure(size_t(M_) * N_);
    reference_gemm<<<dim3(N_ / RB, M_ / RB), 256, 0, s>>>(A_.get(), B_.get(), ref_.get(), M_, N_, K_);
    PTXBENCH_CUDA(cudaGetLastError());
    have_reference_ = true;
  }

  std::vector<ReferenceBuffer> reference_buffers() override {
    ref_.ensure(size_t(M_) * N_);
    return {{"C", ref_.get(), size_t(M_) * N_ * 4}};
  }
  void set_reference_ready(bool ready) override { have_reference_ = ready; }

  json validate_reference_fp64(cudaStream_t s) override {
    if (!have_reference_) fail("validate_reference_fp64 before compute_reference");
    std::vector<__nv_bfloat16> a(size_t(M_) * K_), b(size_t(N_) * K_);
    std::vector<float> ref(size_t(M_) * N_);
    PTXBENCH_CUDA(cudaMemcpyAsync(a.data(), A_.get(), a.size() * 2, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(b.data(), B_.get(), b.size() * 2, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaMemcpyAsync(ref.data(), ref_.get(), ref.size() * 4, cudaMemcpyDeviceToHost, s));
    PTXBENCH_CUDA(cudaStreamSynchronize(s));
    double max_rel = 0, sum_sq_err = 0, sum_sq = 0;
    for (int m = 0; m < M_; ++m)
      for (int n = 0; n < N_; ++n) {
        double acc = 0, mag = 0;
        for (int k = 0; k < K_; ++k) {
          double p = double(__bfloat162float(a[size_t(m) * K_ + k])) * double(__bfloat162float(b[size_t(n) * K_ + k]));
          acc += p;
          mag += std::fabs(p);
        }
        double err = std::fabs(ref[size_t(m) * N_ + n] - acc);
        max_rel = std::max(max_rel, err / std::max(mag, 1e-30));  // error relative to sum |a_k b_k|
        sum_sq_err += err * err;
        sum_sq += acc * acc;
      }
    double rel_l2 = std::sqrt(sum_sq_err / std::max(sum_sq, 1e-300));
    // fp32 accumulation over K terms: error well under K * 2^-24 of sum |a_k b_k|.
    bool passed = max_rel <= K_ * std::ldexp(1.0, -24) && rel_l2 < 1e-5;
    return {{"max_err_over_sum_abs_products", max_rel}, {"rel_l2_err", rel_l2}, {"passed", passed}};
  }

  CheckOutcome check(const json& tolerances, cudaStream_t s) override {
    if (!have_reference_) fail("GEMM check before compute_reference");
    const auto& t = tolerances.at("C");
    auto e = compare_bf16(C_.get(), ref_.get(), size_t(M_) * N_, t.at("rtol"), t.at("atol"), s);
    auto judged = judge_output("C", e, t.at("rtol"), t.at("atol"), t.at("max_rel_l2"), N_);
    return {judged.passed, judged.summary, {{"outputs", json::array({judged.detail})}}};
  }

  void reset_timed_checks(int capacity) override {
    slots_.ensure(capacity);
    PTXBENCH_CUDA(cudaMemset(slots_.get(), 0, sizeof(SlotStatus) * capacity));
  }

  // Freivalds with a sign vector drawn from `secret`, which exists only after the call.
  void check_timed_call(int slot, uint64_t secret, cudaStream_t s) override {
    r_.ensure(N_), s_.ensure(K_), z_.ensure(M_), y_.ensure(M_), c2_.ensure(M_);
    random_signs<<<(N_ + 255) / 256, 256, 0, s>>>(r_.get(), N_, secret);
    PTXBENCH_CUDA(cudaMemsetAsync(s_.get(), 0, sizeof(float) * K_, s));
    bt_times_r<<<dim3((K_ + 255) / 256, (N_ + 63) / 64), 256, 0, s>>>(B_.get(), r_.get(), s_.get(), N_, K_);
    rows_times_vec<<<(M_ * 32 + 255) / 256, 256, 0, s>>>(A_.get(), s_.get(), z_.get(), nullptr, M_, K_);
    rows_times_vec<<<(M_ * 32 + 255) / 256, 256, 0, s>>>(C_.get(), r_.get(), y_.get(), c2_.get(), M_, N_);
    freivalds_verdict<<<(M_ + 255) / 256, 256, 0, s>>>(y_.get(), c2_.get(), z_.get(), M_, slots_.get() + slot);
    PTXBENCH_CUDA(cudaGetLastError());
  }

  std::vector<TimedCheck> timed_check_results(int count) override {
    std::vector<SlotStatus> h(count);
    PTXBENCH_CUDA(cudaDeviceSynchronize());
    PTXBENCH_CUDA(cudaMemcpy(h.data(), slots_.get(), sizeof(SlotStatus) * count, cudaMemcpyDeviceToHost));
    std::vector<TimedCheck> out(count);
    for (int i = 0; i < count; ++i) {
      out[i].output_finite = h[i].nonfinite_rows == 0;
      out[i].projection_ok = h[i].bad_rows == 0;
      out[i].worst_ratio = h[i].worst_ratio;
    }
    return out;
  }

  void snapshot_outputs(cudaStream_t s) override {
    shadow_.ensure(size_t(M_) * N_);
    PTXBENCH_CUDA(cudaMemcpyAsync(shadow_.get(), C_.get(), size_t(M_) * N_ * 2, cudaMemcpyDeviceToDevice, s));
  }
  bool snapshot_matches_outputs() override {
    PTXBENCH_CUDA(cudaDeviceSynchronize());
    return count_differing_words(shadow_.get(), C_.get(), size_t(M_) * N_ * 2, nullptr) == 0;
  }

  std::string math_class() const override { return "bf16"; }

 private:
  static constexpr size_t kWorkspace = 32u << 20;

  // C (row-major MxN) = A B^T is, column-major, the NxM matrix B(as KxN)^T * A(as KxM).
  void matmul(cudaStream_t s) {
    const float alpha = 1.f, beta = 0.f;
    PTXBENCH_CUBLAS(cublasLtMatmul(lt_, op_, &alpha, B_.get(), a_layout_, A_.get(), b_layout_, &beta, C_.get(),
                                   c_layout_, C_.get(), c_layout_, &algo_, workspace_.get(), kWorkspace, s));
  }

  void make_plan() {
    if (!lt_) {  // created on first use: sanitizer and probe runs never touch cuBLAS
      PTXBENCH_CUBLAS(cublasLtCreate(&lt_));
      workspace_ = DeviceBuffer<char>(kWorkspace);
    }
    PTXBENCH_CUBLAS(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    PTXBENCH_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    PTXBENCH_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    PTXBENCH_CUBLAS(cublasLtMatrixLayoutCreate(&a_layout_, CUDA_R_16BF, K_, N_, K_));
    PTXBENCH_CUBLAS(cublasLtMatrixLayoutCreate(&b_layout_, CUDA_R_16BF, K_, M_, K_));
    PTXBENCH_CUBLAS(cublasLtMatrixLayoutCreate(&c_layout_, CUDA_R_16BF, N_, M_, N_));
    cublasLtMatmulPreference_t pref;
    PTXBENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = kWorkspace;
    PTXBENCH_CUBLAS(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    PTXBENCH_CUBLAS(
        cublasLtMatmulAlgoGetHeuristic(lt_, op_, a_layout_, b_layout_, c_layout_, c_layout_, pref, 1, &result, &found));
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) fail("cuBLASLt found no algorithm for this GEMM");
    algo_ = result.algo;
    plan_ready_ = true;
  }
  void destroy_plan() {
    if (!plan_ready_) return;
    cublasLtMatmulDescDestroy(op_);
    cublasLtMatrixLayoutDestroy(a_layout_);
    cublasLtMatrixLayoutDestroy(b_layout_);
    cublasLtMatrixLayoutDestroy(c_layout_);
    plan_ready_ = false;
  }

  int M_ = 0, N_ = 0, K_ = 0;
  DeviceBuffer<__nv_bfloat16> A_, B_, C_, shadow_;
  DeviceBuffer<float> ref_, r_, s_, z_, y_, c2_;
  DeviceBuffer<SlotStatus> slots_;
  DeviceBuffer<char> workspace_;
  bool have_reference_ = false;
  cublasLtHandle_t lt_ = nullptr;
  bool plan_ready_ = false;
  std::map<std::string, double> plan_seconds_;  // the handle (first shape), heuristic and descriptors, per shape
  std::map<std::string, std::vector<std::string>> kernels_;  // by shape label: the kernels cuBLASLt launched
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t a_layout_{}, b_layout_{}, c_layout_{};
  cublasLtMatmulAlgo_t algo_{};
};

PTXBENCH_REGISTER_WORKLOAD("gemm", GemmWorkload, "cublaslt");

}  // namespace
}  // namespace ptxbench

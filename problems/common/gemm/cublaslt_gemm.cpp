#include "common/gemm/cublaslt_gemm.h"

#include <cublasLt.h>

#include "common/gemm/fused_epilogue_check.h"
#include "core/error.h"
#include "runner/detail/device_buffer.h"
#include "runner/launched_kernels.h"

namespace ptxbench::gemm {
namespace {

#define PTXBENCH_CUBLASLT(call)                                                                    \
  do {                                                                                             \
    cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                              \
      ::ptxbench::fail(std::string(#call) + " failed: cuBLAS status " + std::to_string(int(st_))); \
  } while (0)

constexpr size_t kWorkspace = 32u << 20;
constexpr int kMaxAlgorithms = 8;

}  // namespace

struct CublasLtGemm::Impl {
  LtOptions opt;
  cublasLtHandle_t lt = nullptr;
  DeviceBuffer<char> workspace;
  bool planned = false;
  Dims dims;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, c_layout = nullptr;
  cublasLtMatmulAlgo_t algo{};
  json shapes = json::object();  // label -> {algorithm, kernels, rejected}

  ~Impl() {
    destroy();
    if (lt) cublasLtDestroy(lt);
  }

  void destroy() {
    if (op) cublasLtMatmulDescDestroy(op);
    for (auto* l : {&a_layout, &b_layout, &c_layout})
      if (*l) cublasLtMatrixLayoutDestroy(*l), *l = nullptr;
    op = nullptr;
    planned = false;
  }

  // Pointers are attributes of the descriptor: set before every call (host only, no GPU work).
  void bind(const float* scale_a, const float* scale_b, const void* bias) {
    if (opt.operands == Operand::e4m3) {
      if (!scale_a || !scale_b) fail("cuBLASLt fp8 GEMM: both scale pointers are required");
      // cuBLAS's A is our B (see plan()), so our scales swap places.
      PTXBENCH_CUBLASLT(
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof scale_b));
      PTXBENCH_CUBLASLT(
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof scale_a));
    }
    if (opt.gelu_bias) {
      if (!bias) fail("cuBLASLt GELU_BIAS GEMM: the bias pointer is required");
      PTXBENCH_CUBLASLT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    }
  }

  // C (row-major MxN) = A B^T is, column-major, the NxM matrix B(as KxN)^T * A(as KxM): the "TN"
  // layout cuBLASLt's fp8 kernels require. The bias (length = rows of the column-major D = N) is
  // added per column of our C.
  void plan(const void* A, const void* B, void* C, const Dims& d, const float* scale_a, const float* scale_b,
            const void* bias) {
    if (!lt) {
      PTXBENCH_CUBLASLT(cublasLtCreate(&lt));
      workspace = DeviceBuffer<char>(kWorkspace);
    }
    destroy();
    dims = d;
    const cudaDataType ab = opt.operands == Operand::e4m3 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    PTXBENCH_CUBLASLT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    PTXBENCH_CUBLASLT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    PTXBENCH_CUBLASLT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (opt.operands == Operand::e4m3) {
      const int8_t fast_accum = 0;  // the default, stated: partial sums are promoted to fp32 periodically
      PTXBENCH_CUBLASLT(
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof fast_accum));
    }
    if (opt.gelu_bias) {
      const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
      PTXBENCH_CUBLASLT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
      const int32_t bias_type = CUDA_R_16BF;
      PTXBENCH_CUBLASLT(
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    }
    bind(scale_a, scale_b, bias);
    PTXBENCH_CUBLASLT(cublasLtMatrixLayoutCreate(&a_layout, ab, d.K, d.N, d.K));
    PTXBENCH_CUBLASLT(cublasLtMatrixLayoutCreate(&b_layout, ab, d.K, d.M, d.K));
    PTXBENCH_CUBLASLT(cublasLtMatrixLayoutCreate(&c_layout, CUDA_R_16BF, d.N, d.M, d.N));
    cublasLtMatmulPreference_t pref;
    PTXBENCH_CUBLASLT(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = kWorkspace;
    PTXBENCH_CUBLASLT(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t results[kMaxAlgorithms] = {};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, op, a_layout, b_layout, c_layout, c_layout, pref,
                                                             kMaxAlgorithms, results, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
      fail("cuBLASLt found no algorithm for this GEMM (" + d.label() + ", status " + std::to_string(int(st)) + ")");
    // What each candidate algorithm launches, recorded by stream capture (nothing runs); without an
    // epilogue to check the first is taken, as for the bf16 GEMM baseline.
    json rejected = json::array();
    for (int i = 0; i < found; ++i) {
      algo = results[i].algo;
      const auto kernels = capture_enqueued_work([&](cudaStream_t capture) { matmul(A, B, C, capture); }).kernels;
      const std::string why = opt.gelu_bias ? why_not_fused_epilogue(kernels) : "";
      if (why.empty()) {
        planned = true;
        shapes[d.label()] = {{"algorithm", "heuristic result " + std::to_string(i) + " of " + std::to_string(found)},
                             {"kernels", kernels},
                             {"rejected", rejected}};
        return;
      }
      rejected.push_back({{"heuristic_result", i}, {"kernels", kernels}, {"why", why}});
    }
    destroy();
    fail("cuBLASLt offered no fused GELU_BIAS plan for " + d.label() + " (tried " + std::to_string(found) +
         " heuristic results): " + rejected.dump());
  }

  void matmul(const void* A, const void* B, void* C, cudaStream_t s) {
    const float alpha = 1.f, beta = 0.f;
    PTXBENCH_CUBLASLT(cublasLtMatmul(lt, op, &alpha, B, a_layout, A, b_layout, &beta, C, c_layout, C, c_layout, &algo,
                                     workspace.get(), kWorkspace, s));
  }
};

CublasLtGemm::CublasLtGemm(LtOptions o) : impl_(std::make_unique<Impl>()) { impl_->opt = o; }
CublasLtGemm::~CublasLtGemm() = default;

void CublasLtGemm::reset() { impl_->destroy(); }

void CublasLtGemm::run(const void* A, const void* B, void* C, const Dims& d, const float* scale_a, const float* scale_b,
                       const void* bias, cudaStream_t s) {
  if (!impl_->planned || impl_->dims.M != d.M || impl_->dims.N != d.N || impl_->dims.K != d.K)
    impl_->plan(A, B, C, d, scale_a, scale_b, bias);
  else impl_->bind(scale_a, scale_b, bias);
  impl_->matmul(A, B, C, s);
}

json CublasLtGemm::info() const {
  json j = {{"library", "cuBLASLt"},
            {"version", cublasLtGetVersion()},
            {"compute", "CUBLAS_COMPUTE_32F, bf16 C"},
            {"operands", impl_->opt.operands == Operand::e4m3
                             ? "e4m3 with per-tensor fp32 scale pointers, fast accumulation off"
                             : "bf16"},
            {"workspace_bytes", kWorkspace},
            {"shapes", impl_->shapes}};
  if (impl_->opt.gelu_bias)
    j["epilogue"] =
        "CUBLASLT_EPILOGUE_GELU_BIAS (bf16 bias [N]); the plan is checked fused: one kernel, no separate epilogue";
  json kernels = json::object();
  for (const auto& [label, s] : impl_->shapes.items()) kernels[label] = s["kernels"];
  j["kernels"] = kernels;
  return j;
}

}  // namespace ptxbench::gemm

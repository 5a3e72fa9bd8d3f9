// What the range profiler's work counters (runner/integrity/work_counters.h) read, and what they
// cost, on this GPU: a cuBLASLt bf16 GEMM at 4096^3 (HGMMA + TMA on Hopper) and an empty kernel.
//   - the counters' figures for one, and for ten, GEMMs against the GEMM's FLOPs and operand bytes;
//   - the GEMM's median time per sample with a range around each sample against none (a ratio
//     measured side by side, alternating);
//   - what a candidate could see: a launch's host time and round trip inside and outside a range.
// Prints one JSON object. Needs a GPU: scripts/bench_work_counters.sh.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/integrity/work_counters.h"

namespace {

#define CHECK(x)                                                                              \
  do {                                                                                        \
    if (int r_ = int(x); r_ != 0) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #x, r_);         \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void empty_kernel(int* p) {
  if (p && threadIdx.x == 1234567) p[0] = 1;
}

struct Gemm {
  cublasLtHandle_t h{};
  cublasLtMatmulDesc_t desc{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  cublasLtMatmulAlgo_t algo{};
  void *A{}, *B{}, *C{}, *ws{};
  size_t ws_bytes = 64u << 20;
  explicit Gemm(int n) {
    CHECK(cublasLtCreate(&h));
    CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t t = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    for (auto* l : {&a, &b, &c}) CHECK(cublasLtMatrixLayoutCreate(l, CUDA_R_16BF, n, n, n));
    const size_t bytes = 2ull * n * n;
    CHECK(cudaMalloc(&A, bytes));
    CHECK(cudaMalloc(&B, bytes));
    CHECK(cudaMalloc(&C, bytes));
    CHECK(cudaMalloc(&ws, ws_bytes));
    CHECK(cudaMemset(A, 0x3c, bytes));
    CHECK(cudaMemset(B, 0x3c, bytes));
    cublasLtMatmulPreference_t p{};
    CHECK(cublasLtMatmulPreferenceCreate(&p));
    CHECK(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t r{};
    int got = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, desc, a, b, c, c, p, 1, &r, &got));
    algo = r.algo;
  }
  void run(cudaStream_t s) {
    float one = 1, zero = 0;
    CHECK(cublasLtMatmul(h, desc, &one, A, a, B, b, &zero, C, c, C, c, &algo, ws, ws_bytes, s));
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One sample as the harness takes it: events around the call; `around` wraps the whole sample.
double sample_ms(cudaStream_t s, Gemm& g, cudaEvent_t e0, cudaEvent_t e1) {
  CHECK(cudaEventRecord(e0, s));
  g.run(s);
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

nlohmann::json launch_latency(cudaStream_t s) {
  std::vector<double> call, trip;
  for (int i = 0; i < 300; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 32, 0, s>>>(nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaStreamSynchronize(s));
    const auto t2 = std::chrono::steady_clock::now();
    if (i < 30) continue;
    call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    trip.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
  }
  return {{"launch_call_median_us", median(call)}, {"round_trip_median_us", median(trip)}};
}

}  // namespace

int main() {
  using namespace ptxbench::integrity;
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  CUcontext ctx{};
  CHECK(cuCtxGetCurrent(&ctx));
  cudaStream_t s{};
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0{}, e1{};
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const int n = 4096;
  Gemm g(n);
  for (int i = 0; i < 20; ++i) g.run(s);
  CHECK(cudaStreamSynchronize(s));
  nlohmann::json out = {{"gemm", {{"n", n}, {"flops", 2.0 * n * n * n}, {"operand_bytes", 2.0 * 2 * n * n}}}};
  out["latency_no_profiler"] = launch_latency(s);

  std::string why;
  const int samples = 80;
  auto counters = WorkCounters::create(ctx, 0, 2 * samples + 16, &why);
  if (!counters) {
    out["error"] = why;
    std::printf("%s\n", out.dump(2).c_str());
    return 2;
  }
  out["chip"] = counters->chip();
  counters->start();
  out["latency_session_on"] = launch_latency(s);
  counters->push("one_gemm");
  g.run(s);
  counters->pop();
  counters->push("ten_gemms");
  for (int i = 0; i < 10; ++i) g.run(s);
  counters->pop();
  counters->push("latency");
  out["latency_inside_a_range"] = launch_latency(s);
  counters->pop();
  // Alternating samples: a range around each of one kind, none around the other.
  std::vector<double> ranged, plain;
  for (int i = 0; i < samples; ++i) {
    counters->push("sample");
    ranged.push_back(sample_ms(s, g, e0, e1));
    counters->pop();
    plain.push_back(sample_ms(s, g, e0, e1));
  }
  const auto work = counters->stop();
  out["latency_after_session"] = launch_latency(s);
  out["sample_ms"] = {{"with_range_median", median(ranged)}, {"without_median", median(plain)},
                      {"ratio", median(ranged) / median(plain)}};
  std::vector<double> ops, tma;
  for (const auto& w : work) {
    if (w.range == "sample") {
      ops.push_back(w.tensor_ops);
      tma.push_back(w.tma_load_bytes);
      continue;
    }
    out["ranges"][w.range] = {{"tensor_ops", w.tensor_ops}, {"tma_load_bytes", w.tma_load_bytes}, {"tma_store_bytes", w.tma_store_bytes}};
  }
  out["per_sample"] = {{"ranges", ops.size()},
                       {"tensor_ops_min", ops.empty() ? 0 : *std::min_element(ops.begin(), ops.end())},
                       {"tensor_ops_max", ops.empty() ? 0 : *std::max_element(ops.begin(), ops.end())},
                       {"tma_load_bytes_median", median(tma)}};
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

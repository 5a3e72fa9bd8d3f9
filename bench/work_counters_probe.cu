// What the range profiler's work counters (runner/integrity/work_counters.h) read, and what they
// cost, on this GPU: cuBLASLt bf16 GEMMs (HGMMA + TMA on Hopper) at 4096^3 and 1024^3, and an empty
// kernel.
//   - which metrics one pass holds, and the counters' figures for one and for ten GEMMs against
//     the GEMM's FLOPs and operand bytes;
//   - subtraction: one range over alternating large and small GEMMs minus the small ones' own range
//     gives the large ones' figures (how the timed samples' range leaves the library's work out);
//   - the cost: sample medians with no session, inside one range over all the samples, and with a
//     range per sample, in alternating blocks;
//   - what a candidate could see: a launch's host time and round trip inside and outside a range;
//   - later sessions of the same counters, with and without CUPTI's kernel activity records on
//     (the worker keeps them on while it times): finite figures and the records' count.
//   - the SASS counter (the checked calls' counts) used while the range profiler is enabled.
// Prints one JSON object. Needs a GPU: scripts/bench_work_counters.sh.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/integrity/sass_counter.h"
#include "runner/integrity/work_counters.h"

namespace {

#define CHECK(x)                                                                      \
  do {                                                                                \
    if (int r_ = int(x); r_ != 0) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #x, r_); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void empty_kernel(int* p) {
  if (p && threadIdx.x == 1234567) p[0] = 1;
}

// A plain SIMT GEMM (fp32 FFMA): what the other pipes' bound reads for math done off the tensor cores.
__global__ void simt_gemm(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc = fmaf(a[row * n + k], b[k * n + col], acc);
  c[row * n + col] = acc;
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
    CHECK(
        cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
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

// Kernel activity records, counted, as the worker's monitor takes them during timing.
size_t g_kernel_records = 0;
void CUPTIAPI buffer_requested(uint8_t** buf, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buf = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernel_records;
  std::free(buf);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One sample as the harness takes it: events around the call.
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

// One range's figures through the counters' work formula (probes/work_metrics.h).
const ptxbench::WorkFormula* g_formula = nullptr;
nlohmann::json work_json(const ptxbench::CallWork& w, double flops = 0, double bytes = 0) {
  const ptxbench::WorkFigures f = ptxbench::work_figures(*g_formula, w.values);
  nlohmann::json j = {{"target_ops", f.target_ops},
                      {"tma_load_bytes", f.tma_load_bytes},
                      {"tma_store_bytes", f.tma_store_bytes},
                      {"global_load_bytes", f.global_load_bytes},
                      {"other_math_flops", f.other_math_flops},
                      {"unreadable", f.unreadable}};
  if (flops > 0) j["target_ops_per_flop"] = f.target_ops / flops;
  if (flops > 0) j["other_math_bound_per_flop"] = f.other_math_flops / flops;
  if (bytes > 0) j["tma_load_per_operand_byte"] = f.tma_load_bytes / bytes;
  if (f.global_load_bytes > 0) j["tma_share_of_global_loads"] = f.tma_load_bytes / f.global_load_bytes;
  return j;
}

const ptxbench::CallWork* find(const std::vector<ptxbench::CallWork>& v, const std::string& name) {
  for (const auto& w : v)
    if (w.range == name) return &w;
  return nullptr;
}

}  // namespace

int main() {
  using namespace ptxbench;
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  CUcontext ctx{};
  CHECK(cuCtxGetCurrent(&ctx));
  cudaStream_t s{};
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0{}, e1{};
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const int n = 4096, small_n = 1024;
  Gemm g(n), small(small_n);
  for (int i = 0; i < 20; ++i) g.run(s), small.run(s);
  CHECK(cudaStreamSynchronize(s));
  const double flops = 2.0 * n * n * n, bytes = 2.0 * 2 * n * n;
  const double small_flops = 2.0 * small_n * small_n * small_n, small_bytes = 2.0 * 2 * small_n * small_n;
  nlohmann::json out = {{"gemm", {{"n", n}, {"flops", flops}, {"operand_bytes", bytes}}},
                        {"small_gemm", {{"n", small_n}, {"flops", small_flops}, {"operand_bytes", small_bytes}}}};
  out["latency_no_profiler"] = launch_latency(s);

  std::string why;
  const int block = 20, rounds = 4;
  const auto created_from = std::chrono::steady_clock::now();
  auto counters = WorkCounters::create(ctx, 0, 4 * block + 64, "bf16", &why);
  out["create_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - created_from).count();
  if (!counters) {
    out["error"] = why;
    std::printf("%s\n", out.dump(2).c_str());
    return 2;
  }
  out["chip"] = counters->chip();
  g_formula = &counters->formula();
  out["metrics"] = counters->formula().metrics();
  // The worker holds the SASS counter (its checked calls' counts) beside the range profiler: one
  // call counted by it while the range profiler is enabled, before any session.
  {
    std::string sc_why;
    auto sass = SassCounter::create(0, &sc_why);
    if (!sass) {
      out["sass_counter_beside"] = {{"error", sc_why}};
    } else {
      sass->begin();
      g.run(s);
      CHECK(cudaStreamSynchronize(s));
      const auto counts = sass->end();
      double executed = 0;
      for (const auto& c : counts) executed += double(c.executed);
      out["sass_counter_beside"] = {{"instructions", counts.size()}, {"executed", executed}};
    }
  }
  try {
    // Session 1: figures, subtraction, latency.
    counters->start();
    out["latency_session_on"] = launch_latency(s);
    counters->push("one_gemm");
    g.run(s);
    counters->pop();
    counters->push("ten_gemms");
    for (int i = 0; i < 10; ++i) g.run(s);
    counters->pop();
    counters->push("mixed");
    for (int i = 0; i < 30; ++i) g.run(s), small.run(s);
    counters->pop();
    counters->push("small_only");
    for (int i = 0; i < 30; ++i) small.run(s);
    counters->pop();
    {
      const int m = 1024;
      float *a{}, *b{}, *c{};
      CHECK(cudaMalloc(&a, 4ull * m * m));
      CHECK(cudaMalloc(&b, 4ull * m * m));
      CHECK(cudaMalloc(&c, 4ull * m * m));
      CHECK(cudaMemset(a, 0, 4ull * m * m));
      CHECK(cudaMemset(b, 0, 4ull * m * m));
      counters->push("simt_gemm");
      simt_gemm<<<dim3(m / 16, m / 16), dim3(16, 16), 0, s>>>(a, b, c, m);
      counters->pop();
      CHECK(cudaStreamSynchronize(s));
      out["simt_gemm_flops"] = 2.0 * m * m * m;
    }
    counters->push("latency");
    out["latency_inside_a_range"] = launch_latency(s);
    counters->pop();
    CHECK(cudaStreamSynchronize(s));
    const auto w = counters->stop();
    out["ranges"] = nlohmann::json::object();
    if (auto* r = find(w, "one_gemm")) out["ranges"]["one_gemm"] = work_json(*r, flops, bytes);
    if (auto* r = find(w, "ten_gemms")) out["ranges"]["ten_gemms"] = work_json(*r, 10 * flops, 10 * bytes);
    if (auto* r = find(w, "small_only"))
      out["ranges"]["small_only"] = work_json(*r, 30 * small_flops, 30 * small_bytes);
    if (auto* r = find(w, "latency")) out["ranges"]["latency"] = work_json(*r);
    if (auto* r = find(w, "simt_gemm"))
      out["ranges"]["simt_gemm"] = work_json(*r, 2.0 * 1024 * 1024 * 1024, 2.0 * 4 * 1024 * 1024);
    auto* mixed = find(w, "mixed");
    auto* sm = find(w, "small_only");
    if (mixed && sm) {
      CallWork d;
      for (const auto& [metric, v] : mixed->values) d.values[metric] = (v - sm->values.at(metric)) / 30;
      out["subtraction_per_large_gemm"] = work_json(d, flops, bytes);
    }
  } catch (const std::exception& e) {
    out["session1_error"] = e.what();
  }

  // The cost, per call size: blocks of samples with no session, inside one range, a range each.
  for (Gemm* gm : {&g, &small}) {
    std::vector<double> none, one_range, per_sample;
    std::string err;
    for (int r = 0; r < rounds && err.empty(); ++r) {
      for (int i = 0; i < block; ++i) none.push_back(sample_ms(s, *gm, e0, e1));
      try {
        counters->start();
        counters->push("all_samples");
        for (int i = 0; i < block; ++i) one_range.push_back(sample_ms(s, *gm, e0, e1));
        counters->pop();
        CHECK(cudaStreamSynchronize(s));
        counters->stop();
        counters->start();
        for (int i = 0; i < block; ++i) {
          counters->push("sample_" + std::to_string(i));
          per_sample.push_back(sample_ms(s, *gm, e0, e1));
          counters->pop();
        }
        CHECK(cudaStreamSynchronize(s));
        counters->stop();
      } catch (const std::exception& e) {
        err = e.what();
      }
    }
    const double base = median(none);
    nlohmann::json c = {{"none_median_ms", base},
                        {"one_range_median_ms", median(one_range)},
                        {"range_per_sample_median_ms", median(per_sample)},
                        {"one_range_ratio", median(one_range) / base},
                        {"range_per_sample_ratio", median(per_sample) / base}};
    if (!err.empty()) c["error"] = err;
    out[gm == &g ? "cost_large" : "cost_small"] = c;
  }

  // Later sessions: without records, then with kernel activity records on.
  auto session = [&](const char* name) -> nlohmann::json {
    try {
      counters->start();
      counters->push(name);
      for (int i = 0; i < 5; ++i) g.run(s);
      counters->pop();
      CHECK(cudaStreamSynchronize(s));
      const auto w2 = counters->stop();
      if (w2.empty()) return {{"error", "no range came back"}};
      return work_json(w2[0], 5 * flops, 5 * bytes);
    } catch (const std::exception& e) {
      return {{"error", e.what()}};
    }
  };
  out["later_session_without_records"] = session("again");
  CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  out["later_session_with_kernel_records"] = session("with_records");
  CHECK(cuptiActivityFlushAll(1));
  out["later_session_with_kernel_records"]["kernel_records"] = g_kernel_records;
  out["latency_after_sessions"] = launch_latency(s);
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

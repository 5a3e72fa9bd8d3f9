// The timed check's expected rows (problems/common/attention/sampled_rows.h), split over chunks of
// keys and queries, against the full fp32 reference (reference.h) at the same rows: forward O and
// LSE, backward dQ, dK and dV, causal or not, grouped heads, D 64 and 128, S not a multiple of the
// chunk length.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <vector>

#include "common/attention/reference.h"
#include "common/attention/sampled_rows.h"
#include "runner/detail/cuda_check.h"
#include "runner/detail/device_buffer.h"
#include "runner/device_ops.h"

namespace ptxbench::attention {
namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& b, size_t n) {
  std::vector<T> h(n);
  PTXBENCH_CUDA(cudaMemcpy(h.data(), b.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Worst |got - want| / (1e-4 * rms(want) + 1e-3 |want|) over the sampled rows (width values each).
double worst_ratio(const std::vector<float>& got, const std::vector<float>& full, const std::vector<uint32_t>& rows,
                   int width) {
  double sq = 0;
  for (size_t k = 0; k < rows.size(); ++k)
    for (int c = 0; c < width; ++c) sq += double(full[size_t(rows[k]) * width + c]) * full[size_t(rows[k]) * width + c];
  const double rms = std::sqrt(sq / double(rows.size() * width));
  double worst = 0;
  for (size_t k = 0; k < rows.size(); ++k)
    for (int c = 0; c < width; ++c) {
      const double want = full[size_t(rows[k]) * width + c], g = got[k * width + c];
      worst = std::max(worst, std::fabs(g - want) / (1e-4 * rms + 1e-3 * std::fabs(want)));
    }
  return worst;
}

struct Case {
  Dims d;
  const char* name;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class SampledRowsOnGpu : public ::testing::TestWithParam<Case> {};

TEST_P(SampledRowsOnGpu, MatchTheFullReferenceAtTheSampledRows) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU on this machine; run scripts/gpu_tests.sh on a GPU host";
  const Dims d = GetParam().d;
  const int n = 24;
  cudaStream_t s = nullptr;
  DeviceBuffer<__nv_bfloat16> Q(d.elements()), K(d.kv_elements()), V(d.kv_elements()), dO(d.elements()),
      O(d.elements());
  DeviceBuffer<float> O32(d.elements()), LSE(d.rows()), Delta(d.rows()), dQ(d.elements()), dK(d.kv_elements()),
      dV(d.kv_elements());
  fill_uniform_bf16(Q.get(), d.elements(), 11, -2.f, 2.f, s);
  fill_uniform_bf16(K.get(), d.kv_elements(), 12, -2.f, 2.f, s);
  fill_uniform_bf16(V.get(), d.kv_elements(), 13, -1.f, 1.f, s);
  fill_uniform_bf16(dO.get(), d.elements(), 14, -1.f, 1.f, s);
  reference_forward(d, Q.get(), K.get(), V.get(), O32.get(), LSE.get(), s);
  round_to_bf16(O32.get(), O.get(), d.elements(), s);
  row_dots(dO.get(), O.get(), Delta.get(), d.rows(), d.D, s);
  reference_backward(d, Q.get(), K.get(), V.get(), dO.get(), LSE.get(), Delta.get(), dQ.get(), dK.get(), dV.get(), s);

  DeviceBuffer<uint32_t> q_rows(n), k_rows(n);
  DeviceBuffer<float> scratch(row_scratch_floats(d, n)), o(size_t(n) * d.D), lse(n), dq(size_t(n) * d.D),
      dk(size_t(n) * d.D), dv(size_t(n) * d.D);
  draw_rows(99, d, n, q_rows.get(), s);
  draw_kv_rows(98, d, n, k_rows.get(), s);
  expected_forward_rows(d, Q.get(), K.get(), V.get(), q_rows.get(), n, o.get(), lse.get(), scratch.get(), s);
  expected_dq_rows(d, Q.get(), K.get(), V.get(), dO.get(), LSE.get(), Delta.get(), q_rows.get(), n, dq.get(),
                   scratch.get(), s);
  expected_dkdv_rows(d, Q.get(), K.get(), V.get(), dO.get(), LSE.get(), Delta.get(), k_rows.get(), n, dk.get(),
                     dv.get(), scratch.get(), s);
  PTXBENCH_CUDA(cudaDeviceSynchronize());

  const auto qr = to_host(q_rows, n), kr = to_host(k_rows, n);
  EXPECT_LT(worst_ratio(to_host(o, n * d.D), to_host(O32, d.elements()), qr, d.D), 1.0) << "O";
  EXPECT_LT(worst_ratio(to_host(lse, n), to_host(LSE, d.rows()), qr, 1), 1.0) << "LSE";
  EXPECT_LT(worst_ratio(to_host(dq, n * d.D), to_host(dQ, d.elements()), qr, d.D), 1.0) << "dQ";
  EXPECT_LT(worst_ratio(to_host(dk, n * d.D), to_host(dK, d.kv_elements()), kr, d.D), 1.0) << "dK";
  EXPECT_LT(worst_ratio(to_host(dv, n * d.D), to_host(dV, d.kv_elements()), kr, d.D), 1.0) << "dV";
  // The check would pass anything if the rows were all zero: the reference's rows are not.
  const auto full = to_host(dQ, d.elements());
  double sum = 0;
  for (uint32_t r : qr) sum += std::fabs(full[size_t(r) * d.D]);
  EXPECT_GT(sum, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SampledRowsOnGpu,
                         ::testing::Values(Case{{1, 2, 1088, 64, 0, true}, "causal_d64_odd_chunks"},
                                           Case{{1, 4, 4096, 128, 2, false}, "gqa_d128"},
                                           Case{{1, 2, 8192, 128, 0, true}, "causal_d128_long"},
                                           Case{{2, 2, 192, 128, 0, false}, "one_chunk"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ptxbench::attention

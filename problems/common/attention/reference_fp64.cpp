#include "common/attention/reference_fp64.h"

#include <algorithm>
#include <cmath>

#include "runner/detail/cuda_check.h"

namespace ptxbench::attention {
namespace {

double dot(const float* a, const float* b, int n) {
  double acc = 0;
  for (int i = 0; i < n; ++i) acc += double(a[i]) * double(b[i]);
  return acc;
}

// Key/value head of query head `head` (b*H + h): b*Hkv + h/group.
size_t kv_head_of(const Dims& d, size_t head) { return head / size_t(d.group()); }

// Row i of query head `head`: the attended keys' probabilities (exact softmax) and the log-sum-exp.
std::vector<double> probabilities(const Dims& d, const std::vector<float>& Q, const std::vector<float>& K, size_t head,
                                  int i, double* lse) {
  const int keys = d.causal ? i + 1 : d.S;
  const double scale = 1.0 / std::sqrt(double(d.D));
  const size_t kv = kv_head_of(d, head);
  std::vector<double> s(keys);
  double m = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    s[j] = scale * dot(&Q[(head * d.S + i) * d.D], &K[(kv * d.S + j) * d.D], d.D);
    m = std::max(m, s[j]);
  }
  double sum = 0;
  for (double x : s) sum += std::exp(x - m);
  *lse = m + std::log(sum);
  for (double& x : s) x = std::exp(x - *lse);
  return s;
}

}  // namespace

Fp64Forward forward_fp64(const Dims& d, const std::vector<float>& Q, const std::vector<float>& K,
                         const std::vector<float>& V) {
  Fp64Forward f{std::vector<double>(d.elements()), std::vector<double>(d.rows())};
  for (size_t h = 0; h < d.heads(); ++h)
    for (int i = 0; i < d.S; ++i) {
      const size_t row = h * d.S + i;
      auto p = probabilities(d, Q, K, h, i, &f.LSE[row]);
      const size_t kv = kv_head_of(d, h);
      for (size_t j = 0; j < p.size(); ++j)
        for (int c = 0; c < d.D; ++c) f.O[row * d.D + c] += p[j] * V[(kv * d.S + j) * d.D + c];
    }
  return f;
}

Fp64Backward backward_fp64(const Dims& d, const std::vector<float>& Q, const std::vector<float>& K,
                           const std::vector<float>& V, const std::vector<float>& O, const std::vector<float>& dO) {
  Fp64Backward b{std::vector<double>(d.elements()), std::vector<double>(d.kv_elements()),
                 std::vector<double>(d.kv_elements())};
  const double scale = 1.0 / std::sqrt(double(d.D));
  for (size_t h = 0; h < d.heads(); ++h)
    for (int i = 0; i < d.S; ++i) {
      const size_t qi = (h * d.S + i) * d.D;
      double lse = 0;
      auto p = probabilities(d, Q, K, h, i, &lse);
      const double delta = dot(&dO[qi], &O[qi], d.D);
      for (size_t j = 0; j < p.size(); ++j) {
        const size_t kj = (kv_head_of(d, h) * d.S + j) * d.D;  // dK, dV sum over the group's query heads
        const double ds = p[j] * (dot(&dO[qi], &V[kj], d.D) - delta);
        for (int c = 0; c < d.D; ++c) {
          b.dV[kj + c] += p[j] * dO[qi + c];
          b.dK[kj + c] += scale * ds * Q[qi + c];
          b.dQ[qi + c] += scale * ds * K[kj + c];
        }
      }
    }
  return b;
}

Fp64Error error_against(const std::vector<float>& x, const std::vector<double>& ref) {
  double max_err = 0, sum_sq_err = 0, sum_sq = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs(double(x[i]) - ref[i]);
    max_err = std::max(max_err, std::isnan(e) ? INFINITY : e);
    sum_sq_err += e * e;
    sum_sq += ref[i] * ref[i];
  }
  const double rms = std::sqrt(sum_sq / std::max<size_t>(ref.size(), 1));
  return {max_err / std::max(rms, 1e-300), std::sqrt(sum_sq_err / std::max(sum_sq, 1e-300))};
}

std::vector<float> download(const __nv_bfloat16* p, size_t n, cudaStream_t s) {
  std::vector<__nv_bfloat16> raw(n);
  PTXBENCH_CUDA(cudaMemcpyAsync(raw.data(), p, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = __bfloat162float(raw[i]);
  return out;
}

std::vector<float> download(const float* p, size_t n, cudaStream_t s) {
  std::vector<float> out(n);
  PTXBENCH_CUDA(cudaMemcpyAsync(out.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  return out;
}

}  // namespace ptxbench::attention

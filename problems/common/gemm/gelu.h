// GELU, the tanh approximation, exactly as the gemm_bias_gelu problem states it:
//   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// evaluated as x / (1 + exp(-2u)), u = sqrt(2/pi) * (x + 0.044715 x^3): the same function
// (0.5 * (1 + tanh u) = 1 / (1 + exp(-2u))) without the cancellation of 1 + tanh(u) for negative x,
// so the reference keeps its relative accuracy in the tail, where the exact (erf) GELU differs most.
#pragma once
#include <cmath>

namespace ptxbench::gemm {

inline constexpr double kGeluSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
inline constexpr double kGeluCubic = 0.044715;

__host__ __device__ inline float gelu_tanh(float x) {
  const float u = float(kGeluSqrt2OverPi) * (x + float(kGeluCubic) * x * x * x);
  return x / (1.0f + expf(-2.0f * u));
}

// The same in fp64 (the CPU yardstick of the self-test).
inline double gelu_tanh_fp64(double x) {
  const double u = kGeluSqrt2OverPi * (x + kGeluCubic * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

// The exact GELU x * Phi(x) in fp64: not what the problem asks; the self-test reports how far it is
// from the reference under the problem's tolerance (an erf candidate must be judged incorrect).
inline double gelu_erf_fp64(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

}  // namespace ptxbench::gemm

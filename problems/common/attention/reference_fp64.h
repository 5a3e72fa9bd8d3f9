// Attention in fp64 on the CPU, for small shapes: the yardstick the self-test holds the GPU
// reference (reference.h) against. Inputs are the exact values of the bf16 tensors.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <vector>

#include "common/attention/attention_dims.h"

namespace ptxbench::attention {

struct Fp64Forward {
  std::vector<double> O, LSE;
};
Fp64Forward forward_fp64(const Dims& d, const std::vector<float>& Q, const std::vector<float>& K,
                         const std::vector<float>& V);

// Delta from the O given (the bf16 O the candidates get), P from an exact fp64 softmax. dK and dV
// are [B,Hkv,S,D]: each sums over the query heads of its group.
struct Fp64Backward {
  std::vector<double> dQ, dK, dV;
};
Fp64Backward backward_fp64(const Dims& d, const std::vector<float>& Q, const std::vector<float>& K,
                           const std::vector<float>& V, const std::vector<float>& O, const std::vector<float>& dO);

// max |x - ref| / rms(ref), and ||x - ref|| / ||ref||.
struct Fp64Error {
  double max_err_over_rms = 0, rel_l2 = 0;
};
Fp64Error error_against(const std::vector<float>& x, const std::vector<double>& ref);

// Device to host copies (synchronous on `s`).
std::vector<float> download(const __nv_bfloat16* p, size_t n, cudaStream_t s);
std::vector<float> download(const float* p, size_t n, cudaStream_t s);

}  // namespace ptxbench::attention

// Uniform values in [lo, hi) rounded to e4m3 (round to nearest, saturating), a pure function of
// (seed, index), like runner/device_ops.h's fill_uniform_bf16.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ptxbench::gemm {

void fill_uniform_e4m3(uint8_t* p, size_t n, uint64_t seed, float lo, float hi, cudaStream_t s);

}  // namespace ptxbench::gemm

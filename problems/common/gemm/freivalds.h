// The cheap check of a timed GEMM call C = s * A B^T (s = *scale_a * *scale_b, or 1): with a sign
// vector r drawn from the check's secret, C r must equal s * A (B^T r) row by row (Freivalds). Row
// m passes when |(C r)_m - (s A B^T r)_m| <= 0.05 ||C_m|| + 1e-4 (|z_m| + 1): bf16 rounding of C
// gives a random-sign error with standard deviation below 0.0023 ||C_m||; a stale or partial C
// differs by about ||C_m||. NaN/Inf in C fail the row.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/gemm/gemm_dims.h"
#include "runner/detail/device_buffer.h"
#include "runner/workload.h"

namespace ptxbench::gemm {

struct FreivaldsSlot {
  unsigned bad_rows;
  unsigned nonfinite_rows;
  float worst_ratio;
  unsigned pad;
};

class Freivalds {
 public:
  void reset(int capacity);  // zeroes `capacity` slots
  void check(Operand type, const void* A, const void* B, const __nv_bfloat16* C, const Dims& d, const float* scale_a,
             const float* scale_b, uint64_t secret, int slot, cudaStream_t s);
  std::vector<TimedCheck> results(int count);  // synchronizes the device

 private:
  DeviceBuffer<float> r_, s_, z_, y_, c2_;
  DeviceBuffer<FreivaldsSlot> slots_;
};

}  // namespace ptxbench::gemm

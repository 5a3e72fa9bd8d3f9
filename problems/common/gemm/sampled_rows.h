// The cheap check of a timed GEMM call whose epilogue is not linear (C = GELU(A B^T + bias), where
// Freivalds does not apply): a secret random sample of rows (drawn from the check's secret) is
// recomputed exactly in fp32, every column of each, and compared element by element with the
// candidate's C under the problem's tolerance (|c - e| <= atol * rms(sample) + rtol * |e|); the whole
// of C is scanned for NaN/Inf (it is NaN-poisoned before the call).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/gemm/gemm_dims.h"
#include "common/gemm/reference_gemm.h"
#include "runner/detail/device_buffer.h"
#include "runner/workload.h"

namespace ptxbench::gemm {

struct RowSlot {
  unsigned bad;        // sampled elements outside the tolerance
  unsigned nonfinite;  // NaN/Inf anywhere in C
  float worst_ratio;   // worst |c - e| / tolerance over the sample
  unsigned pad;
};

class SampledRows {
 public:
  static constexpr int kRows = 32;
  void reset(int capacity);
  // bf16 A and B; the epilogue's bias and gelu are applied to the recomputed rows (no scales).
  void check(const __nv_bfloat16* A, const __nv_bfloat16* B, const Epilogue& e, const __nv_bfloat16* C, const Dims& d,
             float rtol, float atol, uint64_t secret, int slot, cudaStream_t s);
  std::vector<TimedCheck> results(int count);  // synchronizes the device

 private:
  DeviceBuffer<uint32_t> rows_;
  DeviceBuffer<float> expected_, sum_sq_;
  DeviceBuffer<RowSlot> slots_;
};

}  // namespace ptxbench::gemm

// The cheap check of every timed attention call: a secret random sample of rows (drawn from the
// sample's seed, spread over every (b, h)) is recomputed exactly in fp32, O(S*D) work per row,
// and compared element by element with the candidate's output under the problem's tolerance; the
// whole output is scanned for NaN/Inf (outputs are NaN-poisoned before the call).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attention/attention_dims.h"

namespace ptxbench::attention {

// One timed call's verdict, filled on the device.
struct TimedSlot {
  unsigned bad;        // sampled elements outside the tolerance
  unsigned nonfinite;  // NaN/Inf anywhere in the outputs, or in a sampled element
  float worst_ratio;   // worst |out - expected| / tolerance over the sampled elements
  unsigned pad;
};

// Per element: |out - expected| <= atol * rms(expected sample) + rtol * |expected|.
struct SampleTolerance {
  float rtol = 0, atol = 0;
};

// rows[k] for k < n: flat row index (head * S + position); head (k + r) % heads, position random.
// draw_rows: query rows (heads = B*H); draw_kv_rows: key/value rows (heads = B*Hkv).
void draw_rows(uint64_t seed, const Dims& d, int n, uint32_t* rows, cudaStream_t s);
void draw_kv_rows(uint64_t seed, const Dims& d, int n, uint32_t* rows, cudaStream_t s);

// The floats of device scratch the expected_* functions need for n rows of shape d (each row's
// keys or queries are split into chunks over many blocks; the chunks' sums are combined after).
size_t row_scratch_floats(const Dims& d, int n);

// Forward: o[k, :] and lse[k] of row rows[k].
void expected_forward_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           const uint32_t* rows, int n, float* o, float* lse, float* scratch, cudaStream_t s);
// Backward, with P from the given LSE and Delta = rowsum(dO * O) for every row:
// dq[k, :] of query row rows[k]; dk[k, :] and dv[k, :] of key row rows[k] (a row of [B,Hkv,S]:
// the sum over the query heads of its group).
void expected_dq_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                      float* dq, float* scratch, cudaStream_t s);
void expected_dkdv_rows(const Dims& d, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        const __nv_bfloat16* dO, const float* LSE, const float* Delta, const uint32_t* rows, int n,
                        float* dk, float* dv, float* scratch, cudaStream_t s);

// Compares out[rows[k] * width + c] with expected[k * width + c]; adds to slot->bad / nonfinite and
// raises slot->worst_ratio.
void compare_rows(const __nv_bfloat16* out, const uint32_t* rows, int n, int width, const float* expected,
                  SampleTolerance t, TimedSlot* slot, cudaStream_t s);
void compare_rows(const float* out, const uint32_t* rows, int n, int width, const float* expected, SampleTolerance t,
                  TimedSlot* slot, cudaStream_t s);

// Adds the number of NaN/Inf elements of out to slot->nonfinite.
void count_nonfinite(const __nv_bfloat16* out, size_t n, TimedSlot* slot, cudaStream_t s);
void count_nonfinite(const float* out, size_t n, TimedSlot* slot, cudaStream_t s);

}  // namespace ptxbench::attention

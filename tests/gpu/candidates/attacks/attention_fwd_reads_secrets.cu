// ATTACK (class 2, secrets read from device memory), forward attention: walks the device
// allocations around its inputs.
//  - An fp32 [B,H,S,D] buffer whose first row matches row 0 of attention (computed here, O(S*D)):
//    a correctness check's reference. It is copied into O (and the matching LSE buffer into LSE).
//  - A buffer of 64 row indices below B*H*S: the rows the timed-call check will recompute. Only
//    those rows are computed (exactly); the rest of O and LSE is zero (finite, so it passes a NaN
//    scan); then it spins to just above the hardware floor.
// Otherwise it is the honest wgmma reference. Against a judge that draws its sampled rows and
// computes its references only after the call, what it finds is stale: `incorrect` (or honest).
#include <cuda.h>

#include <map>
#include <tuple>

#define ptxbench_mha_fwd honest_mha_fwd
#include "../../../../problems/mha_fwd/reference/wgmma_tma.cu"
#undef ptxbench_mha_fwd
#include "device_scan.cuh"

namespace {

// One block per listed row: exact softmax(q K^T / sqrt(D)) V and the log-sum-exp, in fp32.
__global__ void rows_exact(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const uint32_t* rows,
                           int S, int D, float* o_out, float* lse_out, __nv_bfloat16* O, float* LSE) {
  const uint32_t row = rows ? rows[blockIdx.x] : 0;
  const size_t head = row / S;
  const __nv_bfloat16* q = Q + size_t(row) * D;
  const __nv_bfloat16* k = K + head * S * D;
  const __nv_bfloat16* v = V + head * S * D;
  const float scale = rsqrtf(float(D));
  __shared__ float red[32];
  float m = -INFINITY;
  for (int j = threadIdx.x; j < S; j += blockDim.x) {
    float acc = 0;
    for (int d = 0; d < D; ++d) acc += __bfloat162float(q[d]) * __bfloat162float(k[size_t(j) * D + d]);
    m = fmaxf(m, acc * scale);
  }
  for (int o = 16; o; o /= 2) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
  __syncthreads();
  m = -INFINITY;
  for (int w = 0; w < blockDim.x / 32; ++w) m = fmaxf(m, red[w]);
  __syncthreads();
  // Each thread owns output element d = threadIdx.x (D <= blockDim.x).
  float l = 0, acc_o = 0;
  for (int j = 0; j < S; ++j) {
    float sc = 0;
    for (int d = 0; d < D; ++d) sc += __bfloat162float(q[d]) * __bfloat162float(k[size_t(j) * D + d]);
    const float p = __expf(sc * scale - m);
    l += p;
    if (threadIdx.x < D) acc_o += p * __bfloat162float(v[size_t(j) * D + threadIdx.x]);
  }
  if (threadIdx.x < D) {
    if (o_out) o_out[threadIdx.x] = acc_o / l;
    if (O) O[size_t(row) * D + threadIdx.x] = __float2bfloat16(acc_o / l);
  }
  if (threadIdx.x == 0) {
    if (lse_out) *lse_out = m + logf(l);
    if (LSE) LSE[row] = m + logf(l);
  }
}

__global__ void matches(const float* candidate, const float* exact, int n, int* ok) {
  const int i = threadIdx.x;
  if (i < n && !(fabsf(candidate[i] - exact[i]) <= 1e-3f * (fabsf(exact[i]) + 1.f))) atomicExch(ok, 0);
}

__global__ void row_indices(const uint32_t* r, int n, uint32_t rows, int* ok) {
  const int i = threadIdx.x;
  if (i < n && r[i] >= rows) atomicExch(ok, 0);
}

__global__ void copy_o(const float* ref, __nv_bfloat16* O, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    O[i] = __float2bfloat16(ref[i]);
}

}  // namespace

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D, cudaStream_t stream) {
  // The allocations are scanned again until a secret has been found (they may not exist yet).
  static std::map<std::tuple<int, int, int, int>, std::vector<FoundAllocation>> scans;
  static std::map<std::tuple<int, int, int, int>, bool> hit;
  auto& found = scans[{B, H, S, D}];
  if (found.empty() || !hit[{B, H, S, D}]) found = allocations_near(Q);
  const size_t rows = size_t(B) * H * S, elements = rows * D;
  static float* exact = nullptr;  // row 0: D values and its LSE
  if (!exact && cudaMalloc(&exact, sizeof(float) * 129) != cudaSuccess) return cudaErrorMemoryAllocation;
  rows_exact<<<1, 128, 0, stream>>>(Q, K, V, nullptr, S, D, exact, exact + 128, nullptr, nullptr);
  const float* ref_o = nullptr;
  const float* ref_lse = nullptr;
  for (const auto& a : found) {
    const float* p = reinterpret_cast<const float*>(a.base);
    if (!ref_o && a.bytes >= elements * 4 && a.bytes <= elements * 16 &&
        probe([&](int* ok, cudaStream_t s) { matches<<<1, 128, 0, s>>>(p, exact, D, ok); }, stream))
      ref_o = p;
    else if (!ref_lse && a.bytes >= rows * 4 && a.bytes <= rows * 16 && (const void*)p != (const void*)LSE &&
             probe([&](int* ok, cudaStream_t s) { matches<<<1, 32, 0, s>>>(p, exact + 128, 1, ok); }, stream))
      ref_lse = p;
  }
  if (ref_o && ref_lse) {
    copy_o<<<1024, 256, 0, stream>>>(ref_o, O, elements);
    cudaMemcpyAsync(LSE, ref_lse, rows * 4, cudaMemcpyDeviceToDevice, stream);
    hit[{B, H, S, D}] = true;
    return cudaGetLastError();
  }
  for (const auto& a : found) {
    const uint32_t* r = reinterpret_cast<const uint32_t*>(a.base);
    if (a.bytes >= 64 * 4 && a.bytes <= 4096 &&
        probe([&](int* ok, cudaStream_t s) { row_indices<<<1, 64, 0, s>>>(r, 64, uint32_t(rows), ok); }, stream)) {
      cudaMemsetAsync(O, 0, elements * 2, stream);
      cudaMemsetAsync(LSE, 0, rows * 4, stream);
      rows_exact<<<64, 128, 0, stream>>>(Q, K, V, r, S, D, nullptr, nullptr, O, LSE);
      const double floor_ns = 4.0 * B * H * double(S) * S * D / (132.0 * 4096 * 1.98e9) * 1e9;
      attack_spin_kernel<<<1, 32, 0, stream>>>((unsigned long long)(floor_ns * 1.15));
      hit[{B, H, S, D}] = true;
      return cudaGetLastError();
    }
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;  // a probe's own failure
  return honest_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream);
}

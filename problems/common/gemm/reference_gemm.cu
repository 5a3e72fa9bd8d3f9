#include "common/gemm/reference_gemm.h"

#include <cuda_fp8.h>

#include "common/gemm/gelu.h"
#include "core/error.h"
#include "runner/detail/cuda_check.h"

// 128x128 tile, 256 threads, 8x8 outputs per thread (strided by 16 so the shared-memory reads of a
// warp hit distinct banks); each k-step stages 16 k of 128 rows of A and of B as fp32.
namespace ptxbench::gemm {
namespace {

constexpr int RB = 128, RK = 16;

// 8 consecutive elements of a row, as fp32 (16 bytes of bf16, 8 bytes of e4m3).
template <typename T>
__device__ void load8(const T* p, float (&v)[8]);
template <>
__device__ void load8<__nv_bfloat16>(const __nv_bfloat16* p, float (&v)[8]) {
  const uint4 u = *reinterpret_cast<const uint4*>(p);
  const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&u);
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = __bfloat162float(e[i]);
}
template <>
__device__ void load8<__nv_fp8_e4m3>(const __nv_fp8_e4m3* p, float (&v)[8]) {
  const uint2 u = *reinterpret_cast<const uint2*>(p);
  const __nv_fp8_e4m3* e = reinterpret_cast<const __nv_fp8_e4m3*>(&u);
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = float(e[i]);
}

template <typename T>
__global__ void __launch_bounds__(256) reference_kernel(const T* A, const T* B, float* C, int N, int K, Epilogue ep) {
  __shared__ float As[RK][RB + 4];
  __shared__ float Bs[RK][RB + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * RB, col0 = blockIdx.x * RB;
  float acc[8][8] = {};
  const int lr = threadIdx.x / 2, lk = (threadIdx.x % 2) * 8;  // each thread loads 8 consecutive k of one row
  for (int k0 = 0; k0 < K; k0 += RK) {
    float va[8], vb[8];
    load8(A + size_t(row0 + lr) * K + k0 + lk, va);
    load8(B + size_t(col0 + lr) * K + k0 + lk, vb);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      As[lk + e][lr] = va[e];
      Bs[lk + e][lr] = vb[e];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RK; ++k) {
      float a[8], b[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  const float scale = ep.scale_a && ep.scale_b ? *ep.scale_a * *ep.scale_b : 1.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = col0 + tx + 16 * j;
    const float bias = ep.bias ? __bfloat162float(ep.bias[col]) : 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float v = acc[i][j] * scale + bias;
      if (ep.gelu) v = gelu_tanh(v);
      C[size_t(row0 + ty + 16 * i) * N + col] = v;
    }
  }
}

}  // namespace

void reference_gemm(Operand type, const void* A, const void* B, float* out, const Dims& d, const Epilogue& e,
                    cudaStream_t s) {
  if (d.M % RB || d.N % RB || d.K % RK || d.M <= 0 || d.N <= 0 || d.K <= 0)
    fail("GEMM reference: needs M, N multiples of 128 and K of 16, got " + d.label());
  if (bool(e.scale_a) != bool(e.scale_b)) fail("GEMM reference: give both scales or neither");
  const dim3 grid(d.N / RB, d.M / RB);
  if (type == Operand::bf16)
    reference_kernel<<<grid, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(A), static_cast<const __nv_bfloat16*>(B),
                                          out, d.N, d.K, e);
  else
    reference_kernel<<<grid, 256, 0, s>>>(static_cast<const __nv_fp8_e4m3*>(A), static_cast<const __nv_fp8_e4m3*>(B),
                                          out, d.N, d.K, e);
  PTXBENCH_CUDA(cudaGetLastError());
}

}  // namespace ptxbench::gemm

// ATTACK (issue 45, heat is the harness's problem): the expert GEMM, correct on the given stream,
// and in every call after it a burn kernel of its own on the same stream: every SM runs tensor-core
// (mma.sync) and FMA chains for kBurnNs, so the GPU draws its full power through the candidate's
// samples, its clocks drop and it warms. Its own time pays for that; what it is after is the
// library's: slower beside it, and slower alone right after it, which the timing stage used to
// call a GPU whose speed changed (`infra_error`, the job run again) — a verdict the candidate chose.
// Everything it does is legal and on the given stream. Must come out `correct` (the GPU let cool,
// the library timed alone again, the speedup against the fastest library timing) or `forbidden`
// (the library back to normal alone at once but more than 10% slower beside it); never infra_error.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm

namespace {

constexpr unsigned long long kBurnNs = 50ull * 1000 * 1000;  // per call

__global__ void __launch_bounds__(256) burn_kernel(unsigned long long ns, float* sink) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const uint32_t seed = threadIdx.x * 0x9e3779b9u + blockIdx.x;
  uint32_t a0 = seed, a1 = seed ^ 0x3f803f80u, a2 = seed + 1, a3 = seed * 3, b0 = seed ^ 0x3c003c00u, b1 = ~seed;
  float d[4][4] = {};
  float x = threadIdx.x * 1e-3f, y = 1.0001f;
  do {
#pragma unroll 4
    for (int i = 0; i < 64; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      x = fmaf(x, y, 0.5f);
      y = fmaf(y, 0.9999f, x * 1e-9f);
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  float s = x + y;
  for (int j = 0; j < 4; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  if (s == 12345.0f) *sink = s;  // keeps the work; never true in practice
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const cudaError_t e = honest_gemm(A, B, C, M, N, K, stream);
  if (e != cudaSuccess) return e;
  static int sms = 0;
  static float* sink = nullptr;
  if (!sms) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return cudaErrorUnknown;
    if (cudaMalloc(&sink, sizeof(float)) != cudaSuccess) return cudaErrorMemoryAllocation;
  }
  burn_kernel<<<sms * 4, 256, 0, stream>>>(kBurnNs, sink);
  return cudaGetLastError();
}

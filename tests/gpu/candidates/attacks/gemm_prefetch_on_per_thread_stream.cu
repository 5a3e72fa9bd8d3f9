// ATTACK (issue 30, memory operations off the given stream): after each honest call, a prefetch
// of managed memory (1 MiB) on the per-thread default stream. A prefetch leaves no kernel, copy
// or set record, so only the call itself shows it. Must be `forbidden` (work on a stream other
// than the given one).
#include "target_decoy.cuh"

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  cudaError_t e = decoy::gemm(A, B, C, M, N, K, stream, decoy::kDecoyNone);
  if (e != cudaSuccess) return e;
  constexpr size_t kBytes = 1 << 20;
  static void* managed = nullptr;
  if (!managed && (e = cudaMallocManaged(&managed, kBytes)) != cudaSuccess) return e;
  int device = 0;
  cudaGetDevice(&device);
  cudaMemLocation where{};
  where.type = cudaMemLocationTypeDevice;
  where.id = device;
  return cudaMemPrefetchAsync(managed, kBytes, where, 0, cudaStreamPerThread);
}

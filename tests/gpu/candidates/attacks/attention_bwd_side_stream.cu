// ATTACK (issue 45, backward work on a side stream): the naive attention backward (three kernels),
// with its dQ kernel on the per-thread default stream instead of the given one: forked from the
// given stream after the Delta kernel and joined back to it with events, so every output is right
// and ready when the given stream's work is (no gain, but all work must be on the given stream).
// No stream is created, so no static check and no creation rule sees it. Must be `forbidden`:
// foreign_stream, from the dQ kernel's activity record in timed and checked calls, from its launch's
// stream where kernel records pause (counted calls), and at the event calls on the side stream.
// (With a stream of its own made between calls by a thread: attacks/gemm_stream_created_by_thread.cu.)
#define ptxbench_mha_bwd honest_mha_bwd
#include "../../../../problems/mha_bwd/reference/naive.cu"
#undef ptxbench_mha_bwd

namespace {

template <int D>
cudaError_t launch_with_side_stream(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                    const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                    __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S,
                                    float* delta, cudaStream_t stream) {
  static cudaEvent_t fork = nullptr, join = nullptr;
  if (!fork) {
    cudaError_t e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    if (e != cudaSuccess) return e;
  }
  const cudaStream_t side = cudaStreamPerThread;
  const size_t rows = (size_t)B * H * S;
  const float scale = 1.0f / sqrtf((float)D);
  const int group = 1;
  delta_kernel<<<(unsigned)((rows * 32 + 255) / 256), 256, 0, stream>>>(O, dO, delta, rows, D);
  const int kv_smem = (int)sizeof(float) * (4 * kTile * (D + 1) + 2 * kTile * kLd + 2 * kTile);
  const int q_smem = (int)sizeof(float) * (4 * kTile * (D + 1) + kTile * kLd + 2 * kTile);
  cudaError_t e = cudaFuncSetAttribute(dk_dv_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kv_smem);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(dq_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, q_smem);
  if (e != cudaSuccess) return e;
  // dQ needs Delta: the side stream waits for the given stream's work so far.
  if ((e = cudaEventRecord(fork, stream)) != cudaSuccess) return e;
  if ((e = cudaStreamWaitEvent(side, fork, 0)) != cudaSuccess) return e;
  dim3 kv_grid(S / kTile, B * H), q_grid(S / kTile, B * H);
  dq_kernel<D><<<q_grid, kThreads, q_smem, side>>>(Q, K, V, dO, LSE, delta, dQ, S, scale, group);
  dk_dv_kernel<D><<<kv_grid, kThreads, kv_smem, stream>>>(Q, K, V, dO, LSE, delta, dK, dV, S, scale, group);
  // Joined back: the given stream's later work waits for dQ.
  if ((e = cudaEventRecord(join, side)) != cudaSuccess) return e;
  if ((e = cudaStreamWaitEvent(stream, join, 0)) != cudaSuccess) return e;
  return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* LSE,
                                        __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, int B, int H, int S,
                                        int D, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (B <= 0 || H <= 0 || S <= 0 || S % kTile) return cudaErrorInvalidValue;
  if (workspace_bytes < sizeof(float) * (size_t)B * H * S) return cudaErrorInvalidValue;
  float* delta = static_cast<float*>(workspace);
  if (D == 64) return launch_with_side_stream<64>(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, delta, stream);
  if (D == 128) return launch_with_side_stream<128>(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, delta, stream);
  return cudaErrorInvalidValue;
}

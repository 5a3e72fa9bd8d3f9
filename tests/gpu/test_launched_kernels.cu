// capture_enqueued_work: what a host call enqueues, seen by stream capture without running it.
#include <gtest/gtest.h>

#include "runner/detail/cuda_check.h"
#include "runner/launched_kernels.h"

namespace {

__global__ void ptxbench_test_fill(float* p, float v) { p[threadIdx.x] = v; }

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace

TEST(LaunchedKernels, ListsKernelsAndMemsetsWithoutRunningThem) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU on this machine; run scripts/gpu_tests.sh on a GPU host";
  float* buf = nullptr;
  PTXBENCH_CUDA(cudaMalloc(&buf, 32 * sizeof(float)));
  PTXBENCH_CUDA(cudaMemset(buf, 0, 32 * sizeof(float)));
  auto work = ptxbench::capture_enqueued_work([&](cudaStream_t s) {
    PTXBENCH_CUDA(cudaMemsetAsync(buf, 0xFF, 32 * sizeof(float), s));
    ptxbench_test_fill<<<1, 32, 0, s>>>(buf, 1.f);
    ptxbench_test_fill<<<1, 32, 0, s>>>(buf, 2.f);
  });
  ASSERT_EQ(work.kernels.size(), 2u);
  EXPECT_NE(work.kernels[0].find("ptxbench_test_fill"), std::string::npos) << work.kernels[0];
  EXPECT_EQ(work.memsets, 1);
  float host = -1.f;  // captured, never run: the buffer still holds the zeros
  PTXBENCH_CUDA(cudaMemcpy(&host, buf, sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(host, 0.f);
  PTXBENCH_CUDA(cudaFree(buf));
}

TEST(LaunchedKernels, ACallThatCannotBeCapturedThrowsAndLeavesNoErrorBehind) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU on this machine; run scripts/gpu_tests.sh on a GPU host";
  EXPECT_THROW(ptxbench::capture_enqueued_work([](cudaStream_t s) { PTXBENCH_CUDA(cudaStreamSynchronize(s)); }),
               ptxbench::Error);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  float* buf = nullptr;  // the device is still usable
  EXPECT_EQ(cudaMalloc(&buf, 16), cudaSuccess);
  cudaFree(buf);
}

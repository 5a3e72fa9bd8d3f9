// Which CUDA calls candidate code may make, and which driver entry points it may resolve.
#include <gtest/gtest.h>

#include "runner/integrity/api_rules.h"

using namespace ptxbench::integrity;

TEST(ApiRules, BaseNamesDropVersionAndPerThreadSuffixes) {
  EXPECT_EQ(api_base_name("cuLaunchKernel_ptsz"), "cuLaunchKernel");
  EXPECT_EQ(api_base_name("cuCtxCreate_v4"), "cuCtxCreate");
  EXPECT_EQ(api_base_name("cuMemcpyAsync_v2_ptsz"), "cuMemcpyAsync");
  EXPECT_EQ(api_base_name("cuGetProcAddress_v2"), "cuGetProcAddress");
  EXPECT_EQ(api_base_name("cuTensorMapEncodeTiled"), "cuTensorMapEncodeTiled");
  EXPECT_EQ(api_base_name("cu_v"), "cu_v");  // not a version suffix
}

TEST(ApiRules, EntryPointsRealKernelsNeedResolve) {
  for (const char* s : {"cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "cuGetErrorString", "cuLaunchKernelEx",
                        "cuFuncSetAttribute", "cuOccupancyMaxActiveClusters", "cuDeviceGetAttribute"})
    EXPECT_TRUE(entry_point_allowed(s)) << s;
}

TEST(ApiRules, StreamsContextsModulesAndLibrariesDoNotResolve) {
  for (const char* s : {"cuStreamCreate", "cuStreamCreateWithPriority", "cuCtxCreate", "cuModuleLoadData",
                        "cuLibraryLoadData", "cuMemGetAddressRange", "cuLaunchHostFunc", "cuStreamSetAttribute",
                        "cuGetProcAddress", "cuMulticastCreate", "cublasLtMatmul"})
    EXPECT_FALSE(entry_point_allowed(s)) << s;
}

TEST(ApiRules, StateChangingCallsAreForbiddenEvenThroughTheRuntime) {
  for (const char* s : {"cuStreamCreate", "cudaStreamCreateWithFlags", "cuCtxSetLimit", "cudaDeviceSetLimit",
                        "cudaLaunchHostFunc", "cuStreamAddCallback", "cudaStreamSetAttribute",
                        "cuCtxResetPersistingL2Cache", "cudaDeviceReset", "cuCtxPushCurrent_v2", "cuIpcGetMemHandle"}) {
    EXPECT_FALSE(forbidden_api_reason(s, true).empty()) << s;
    EXPECT_FALSE(forbidden_api_reason(s, false).empty()) << s;
  }
}

TEST(ApiRules, OrdinaryCallsAreAllowed) {
  for (const char* s :
       {"cudaLaunchKernel", "cuLaunchKernel", "cudaMallocAsync", "cudaFreeAsync", "cudaStreamBeginCapture",
        "cudaGraphLaunch", "cuLibraryLoadData", "cudaFuncSetAttribute", "cudaMemsetAsync", "cudaStreamSynchronize",
        "cudaGetDriverEntryPoint", "cuTensorMapEncodeTiled"})
    EXPECT_TRUE(forbidden_api_reason(s, true).empty()) << s;
}

TEST(ApiRules, WorkEnqueuingCallsAreRecognized) {
  EXPECT_TRUE(enqueues_gpu_work("cuLaunchKernel_ptsz"));
  EXPECT_TRUE(enqueues_gpu_work("cuLaunchKernelEx"));
  EXPECT_TRUE(enqueues_gpu_work("cuGraphLaunch"));
  EXPECT_TRUE(enqueues_gpu_work("cuMemcpyAsync_v2"));
  EXPECT_TRUE(enqueues_gpu_work("cuMemsetD32Async"));
  EXPECT_FALSE(enqueues_gpu_work("cuLaunchHostFunc"));
  EXPECT_FALSE(enqueues_gpu_work("cuStreamSynchronize"));
  EXPECT_TRUE(is_kernel_launch("cuLaunchCooperativeKernel"));
  EXPECT_FALSE(is_kernel_launch("cuGraphLaunch"));
  EXPECT_FALSE(is_kernel_launch("cuMemcpyAsync"));
}

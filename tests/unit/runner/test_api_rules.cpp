// Which CUDA calls candidate code may make, and which driver entry points it may resolve.
#include <gtest/gtest.h>

#include <cupti.h>

#include "runner/integrity/api_rules.h"
#include "runner/integrity/stream_argument.h"

using namespace ptxbench;

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

// Issue 45: what an honest kernel needs of events and graphs stays allowed (joins, programmatic
// dependent launch, a graph captured on the given stream and replayed); events shared with another
// process and graph host nodes (host code after the call) are forbidden, as are streams by any name.
TEST(ApiRules, EventsAndGraphsOnTheGivenStreamAreAllowedTheirHostCodeAndIpcAreNot) {
  for (const char* s :
       {"cuEventCreate", "cudaEventCreateWithFlags", "cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent",
        "cuEventSynchronize", "cuEventQuery", "cuEventDestroy_v2", "cuStreamBeginCapture_v2", "cuStreamEndCapture",
        "cuGraphInstantiateWithFlags", "cuGraphUpload", "cuGraphLaunch", "cuGraphAddKernelNode_v2",
        "cuGraphAddMemAllocNode", "cuGraphExecDestroy", "cuMemAllocAsync", "cuMemFreeAsync"})
    EXPECT_TRUE(forbidden_api_reason(s, true).empty()) << s;
  for (const char* s : {"cuIpcGetEventHandle", "cudaIpcOpenEventHandle", "cuGraphAddHostNode", "cudaGraphAddHostNode",
                        "cuGraphExecHostNodeSetParams", "cuStreamCopyAttributes", "cuCtxSetFlags",
                        "cuStreamCreateWithPriority", "cuGreenCtxStreamCreate"})
    EXPECT_FALSE(forbidden_api_reason(s, false).empty()) << s;
}

TEST(ApiRules, AHostNodeAddedThroughTheGenericNodeCallsIsSeenInItsParameters) {
  CUgraphNodeParams host{}, kernel{};
  host.type = CU_GRAPH_NODE_TYPE_HOST;
  kernel.type = CU_GRAPH_NODE_TYPE_KERNEL;
  cuGraphAddNode_v2_params add{};
  add.nodeParams = &host;
  EXPECT_TRUE(graph_node_is_host("cuGraphAddNode_v2", &add));
  cuGraphExecNodeSetParams_params set{};
  set.nodeParams = &host;
  EXPECT_TRUE(graph_node_is_host("cuGraphExecNodeSetParams", &set));
  add.nodeParams = &kernel;
  EXPECT_FALSE(graph_node_is_host("cuGraphAddNode_v2", &add));
  EXPECT_FALSE(graph_node_is_host("cuGraphAddNode", nullptr));
  EXPECT_FALSE(graph_node_is_host("cuLaunchKernel", &add));
}

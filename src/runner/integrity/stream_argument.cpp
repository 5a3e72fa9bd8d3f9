// The stream a driver API call enqueues on, read from its parameters in CUPTI's callback.
#include "runner/integrity/stream_argument.h"

#include <cupti.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <iterator>
#include <string>

namespace ptxbench {
namespace {

struct StreamAt {
  std::string_view api;  // CUPTI's name without a _ptsz/_ptds suffix (the layout is the same)
  size_t offset;         // of the CUstream in the call's parameter struct
};

// Generated from CUDA 13.0's generated_cuda_meta.h: every call whose parameters hold the stream
// its work goes to. Queries (cuStreamQuery, cuStreamSynchronize, cuStreamGet*) enqueue nothing.
const StreamAt kStreams[] = {
    {"cuMemcpyHtoAAsync", offsetof(cuMemcpyHtoAAsync_params, hStream)},
    {"cuMemcpyAtoHAsync", offsetof(cuMemcpyAtoHAsync_params, hStream)},
    {"cuMemcpyHtoDAsync", offsetof(cuMemcpyHtoDAsync_params, hStream)},
    {"cuMemcpyDtoHAsync", offsetof(cuMemcpyDtoHAsync_params, hStream)},
    {"cuMemcpyDtoDAsync", offsetof(cuMemcpyDtoDAsync_params, hStream)},
    {"cuMemcpy2DAsync", offsetof(cuMemcpy2DAsync_params, hStream)},
    {"cuMemcpy3DAsync", offsetof(cuMemcpy3DAsync_params, hStream)},
    {"cuMemcpyHtoAAsync_v2", offsetof(cuMemcpyHtoAAsync_v2_params, hStream)},
    {"cuMemcpyAtoHAsync_v2", offsetof(cuMemcpyAtoHAsync_v2_params, hStream)},
    {"cuMemcpyHtoDAsync_v2", offsetof(cuMemcpyHtoDAsync_v2_params, hStream)},
    {"cuMemcpyDtoHAsync_v2", offsetof(cuMemcpyDtoHAsync_v2_params, hStream)},
    {"cuMemcpyDtoDAsync_v2", offsetof(cuMemcpyDtoDAsync_v2_params, hStream)},
    {"cuMemcpy2DAsync_v2", offsetof(cuMemcpy2DAsync_v2_params, hStream)},
    {"cuMemcpy3DAsync_v2", offsetof(cuMemcpy3DAsync_v2_params, hStream)},
    {"cuMemcpyAsync", offsetof(cuMemcpyAsync_params, hStream)},
    {"cuMemcpyPeerAsync", offsetof(cuMemcpyPeerAsync_params, hStream)},
    {"cuMemcpy3DPeerAsync", offsetof(cuMemcpy3DPeerAsync_params, hStream)},
    {"cuMemcpyBatchAsync", offsetof(cuMemcpyBatchAsync_params, hStream)},
    {"cuMemcpy3DBatchAsync", offsetof(cuMemcpy3DBatchAsync_params, hStream)},
    {"cuMemcpyBatchAsync_v2", offsetof(cuMemcpyBatchAsync_v2_params, hStream)},
    {"cuMemcpy3DBatchAsync_v2", offsetof(cuMemcpy3DBatchAsync_v2_params, hStream)},
    {"cuMemsetD8Async", offsetof(cuMemsetD8Async_params, hStream)},
    {"cuMemsetD16Async", offsetof(cuMemsetD16Async_params, hStream)},
    {"cuMemsetD32Async", offsetof(cuMemsetD32Async_params, hStream)},
    {"cuMemsetD2D8Async", offsetof(cuMemsetD2D8Async_params, hStream)},
    {"cuMemsetD2D16Async", offsetof(cuMemsetD2D16Async_params, hStream)},
    {"cuMemsetD2D32Async", offsetof(cuMemsetD2D32Async_params, hStream)},
    {"cuStreamWaitEvent", offsetof(cuStreamWaitEvent_params, hStream)},
    {"cuStreamAttachMemAsync", offsetof(cuStreamAttachMemAsync_params, hStream)},
    {"cuEventRecord", offsetof(cuEventRecord_params, hStream)},
    {"cuEventRecordWithFlags", offsetof(cuEventRecordWithFlags_params, hStream)},
    {"cuLaunchKernel", offsetof(cuLaunchKernel_params, hStream)},
    {"cuLaunchCooperativeKernel", offsetof(cuLaunchCooperativeKernel_params, hStream)},
    {"cuLaunchGridAsync", offsetof(cuLaunchGridAsync_params, hStream)},
    {"cuMemPrefetchAsync", offsetof(cuMemPrefetchAsync_params, hStream)},
    {"cuMemPrefetchAsync_v2", offsetof(cuMemPrefetchAsync_v2_params, hStream)},
    {"cuMemPrefetchBatchAsync", offsetof(cuMemPrefetchBatchAsync_params, hStream)},
    {"cuMemDiscardBatchAsync", offsetof(cuMemDiscardBatchAsync_params, hStream)},
    {"cuMemDiscardAndPrefetchBatchAsync", offsetof(cuMemDiscardAndPrefetchBatchAsync_params, hStream)},
    {"cuStreamBeginCapture", offsetof(cuStreamBeginCapture_params, hStream)},
    {"cuStreamBeginCapture_v2", offsetof(cuStreamBeginCapture_v2_params, hStream)},
    {"cuStreamBeginCaptureToGraph", offsetof(cuStreamBeginCaptureToGraph_params, hStream)},
    {"cuGraphUpload", offsetof(cuGraphUpload_params, hStream)},
    {"cuGraphLaunch", offsetof(cuGraphLaunch_params, hStream)},
    {"cuMemMapArrayAsync", offsetof(cuMemMapArrayAsync_params, hStream)},
    {"cuMemFreeAsync", offsetof(cuMemFreeAsync_params, hStream)},
    {"cuMemAllocAsync", offsetof(cuMemAllocAsync_params, hStream)},
    {"cuMemAllocFromPoolAsync", offsetof(cuMemAllocFromPoolAsync_params, hStream)},
    {"cuStreamWriteValue32", offsetof(cuStreamWriteValue32_params, stream)},
    {"cuStreamWaitValue32", offsetof(cuStreamWaitValue32_params, stream)},
    {"cuStreamWriteValue64", offsetof(cuStreamWriteValue64_params, stream)},
    {"cuStreamWaitValue64", offsetof(cuStreamWaitValue64_params, stream)},
    {"cuStreamBatchMemOp", offsetof(cuStreamBatchMemOp_params, stream)},
    {"cuStreamWriteValue32_v2", offsetof(cuStreamWriteValue32_v2_params, stream)},
    {"cuStreamWaitValue32_v2", offsetof(cuStreamWaitValue32_v2_params, stream)},
    {"cuStreamWriteValue64_v2", offsetof(cuStreamWriteValue64_v2_params, stream)},
    {"cuStreamWaitValue64_v2", offsetof(cuStreamWaitValue64_v2_params, stream)},
    {"cuStreamBatchMemOp_v2", offsetof(cuStreamBatchMemOp_v2_params, stream)},
    {"cuSignalExternalSemaphoresAsync", offsetof(cuSignalExternalSemaphoresAsync_params, stream)},
    {"cuWaitExternalSemaphoresAsync", offsetof(cuWaitExternalSemaphoresAsync_params, stream)},
    {"cuMemBatchDecompressAsync", offsetof(cuMemBatchDecompressAsync_params, stream)},
};

// Where the stream of `api` is: an index into kStreams, kLaunchEx, or kNone.
constexpr int kNone = -1, kLaunchEx = -2;
// The cache below holds slot - kNotLookedUp, so its zero-initialized entries mean "not looked up".
constexpr int kNotLookedUp = -4;

int stream_slot(std::string_view api) {
  std::string name(api);
  for (std::string_view suffix : {"_ptsz", "_ptds"})
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  if (name == "cuLaunchKernelEx") return kLaunchEx;
  for (size_t i = 0; i < std::size(kStreams); ++i)
    if (kStreams[i].api == name) return int(i);
  return kNone;
}

std::optional<CUstream> read_stream(int slot, const void* params) {
  if (!params || slot == kNone) return std::nullopt;
  if (slot == kLaunchEx) {
    const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
    return p->config ? p->config->hStream : nullptr;
  }
  return *reinterpret_cast<const CUstream*>(static_cast<const char*>(params) + kStreams[slot].offset);
}

}  // namespace

std::optional<CUstream> stream_argument(std::string_view api, const void* params) {
  return read_stream(stream_slot(api), params);
}

std::optional<CUstream> stream_argument(uint32_t cbid, std::string_view api, const void* params) {
  static std::array<std::atomic<int>, 4096> slots{};
  if (cbid >= slots.size()) return stream_argument(api, params);
  int slot = slots[cbid].load(std::memory_order_relaxed) + kNotLookedUp;
  if (slot == kNotLookedUp) slots[cbid].store((slot = stream_slot(api)) - kNotLookedUp, std::memory_order_relaxed);
  return read_stream(slot, params);
}

bool graph_node_is_host(std::string_view api, const void* params) {
  if (!params || !api.starts_with("cuGraph")) return false;
  const CUgraphNodeParams* p = nullptr;
  if (api == "cuGraphAddNode") p = static_cast<const cuGraphAddNode_params*>(params)->nodeParams;
  else if (api == "cuGraphAddNode_v2") p = static_cast<const cuGraphAddNode_v2_params*>(params)->nodeParams;
  else if (api == "cuGraphNodeSetParams") p = static_cast<const cuGraphNodeSetParams_params*>(params)->nodeParams;
  else if (api == "cuGraphExecNodeSetParams")
    p = static_cast<const cuGraphExecNodeSetParams_params*>(params)->nodeParams;
  return p && p->type == CU_GRAPH_NODE_TYPE_HOST;
}

}  // namespace ptxbench

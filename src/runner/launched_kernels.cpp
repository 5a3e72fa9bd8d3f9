// Which GPU work a host call enqueues, found by stream capture without running it.
#include "runner/launched_kernels.h"

#include <cuda.h>

#include "core/error.h"
#include "runner/detail/cuda_check.h"
#include "runner/integrity/gpu_activity_monitor.h"

namespace ptxbench {
namespace {

// Driver entry points through the runtime, so the worker needs no link against libcuda.
template <typename Fn>
Fn driver_fn(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    fail(std::string("the CUDA driver has no ") + name);
  return reinterpret_cast<Fn>(fn);
}

struct Driver {
  decltype(&cuGraphKernelNodeGetParams_v2) node_params =
      driver_fn<decltype(&cuGraphKernelNodeGetParams_v2)>("cuGraphKernelNodeGetParams", 12000);
  decltype(&cuFuncGetName) func_name = driver_fn<decltype(&cuFuncGetName)>("cuFuncGetName", 12030);
  decltype(&cuKernelGetName) kernel_name = driver_fn<decltype(&cuKernelGetName)>("cuKernelGetName", 12030);
};

std::string kernel_name(const Driver& drv, cudaGraphNode_t node) {
  CUDA_KERNEL_NODE_PARAMS p{};
  if (drv.node_params(reinterpret_cast<CUgraphNode>(node), &p) != CUDA_SUCCESS) return "(unnamed kernel)";
  const char* name = nullptr;
  if (p.func != nullptr && drv.func_name(&name, p.func) == CUDA_SUCCESS && name) return name;
  if (p.kern != nullptr && drv.kernel_name(&name, p.kern) == CUDA_SUCCESS && name) return name;
  return "(unnamed kernel)";
}

void walk(const Driver& drv, cudaGraph_t graph, EnqueuedWork& out) {
  size_t n = 0;
  PTXBENCH_CUDA(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) PTXBENCH_CUDA(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    PTXBENCH_CUDA(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      out.kernels.push_back(kernel_name(drv, node));
    } else if (type == cudaGraphNodeTypeMemset) {
      ++out.memsets;
    } else if (type == cudaGraphNodeTypeMemcpy) {
      ++out.memcpys;
    } else if (type == cudaGraphNodeTypeGraph) {
      cudaGraph_t child = nullptr;
      PTXBENCH_CUDA(cudaGraphChildGraphNodeGetGraph(node, &child));
      walk(drv, child, out);
    } else if (type != cudaGraphNodeTypeEmpty) {
      ++out.other;
    }
  }
}

}  // namespace

EnqueuedWork capture_enqueued_work(const std::function<void(cudaStream_t)>& enqueue) {
  static const Driver drv;
  cudaStream_t stream = nullptr;
  {
    HarnessStreamScope own;  // the harness's own stream (judged as such once a candidate loaded)
    PTXBENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  cudaGraph_t graph = nullptr;
  try {
    PTXBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave capture mode whatever happened
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    PTXBENCH_CUDA(cudaStreamEndCapture(stream, &graph));
    EnqueuedWork out;
    walk(drv, graph, out);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    return out;
  } catch (...) {
    cudaGetLastError();  // a failed capture leaves a sticky-free error behind; do not leak it into later calls
    cudaStreamDestroy(stream);
    throw;
  }
}

}  // namespace ptxbench

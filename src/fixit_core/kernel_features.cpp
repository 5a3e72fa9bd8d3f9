// The feature words of a kernel's code (target instructions, memory paths, synchronization) for retrieval.
#include "fixit_core/kernel_features.h"

#include <algorithm>

#include "compile/strip_comments.h"

namespace ptxbench::fixit {

std::vector<std::string> kernel_features(const std::string& source) {
  const std::string code = strip_comments(source, StringLiterals::keep);
  // feature -> any of these spellings (PTX mnemonics, the knowledge pack's helper names, CUDA APIs)
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kFeatures = {
      {"wgmma", {"wgmma"}},
      {"tma",
       {"cp.async.bulk.tensor", "cp_async_bulk_tensor", "CUtensorMap", "cuTensorMapEncode", "tma_load", "tma_store"}},
      {"tma_reduce", {"cp.reduce.async.bulk", "tma_reduce"}},
      {"tcgen05", {"tcgen05"}},
      {"mbarrier", {"mbarrier"}},
      {"bulk_copy", {"cp.async.bulk.global", "cp.async.bulk.shared"}},
      {"cp_async", {"cp.async.ca", "cp.async.cg", "__pipeline_memcpy_async", "cp_async_"}},
      {"ldmatrix", {"ldmatrix"}},
      {"stmatrix", {"stmatrix"}},
      {"mma_sync", {"mma.sync", "wmma::", "nvcuda::wmma"}},
      {"shared_memory", {"__shared__"}},
      {"dynamic_shared_memory", {"extern __shared__", "cudaFuncAttributeMaxDynamicSharedMemorySize"}},
      {"block_barrier", {"__syncthreads", "bar.sync", "barrier.sync"}},
      {"named_barrier", {"bar.arrive", "barrier.arrive"}},
      {"proxy_fence", {"fence.proxy.async"}},
      {"cluster", {"__cluster_dims__", "cudaLaunchAttributeClusterDimension", "barrier.cluster", "mapa."}},
      {"setmaxnreg", {"setmaxnreg"}},
      {"warp_shuffle", {"__shfl"}},
      {"atomics", {"atomicAdd", "atomicMax", "atomicCAS", "atom.global", "atom.shared", "red.global", "red.shared"}},
      {"launch_ex", {"cudaLaunchKernelEx"}},
      {"programmatic_launch",
       {"griddepcontrol", "cudaGridDependencySynchronize", "cudaLaunchAttributeProgrammaticStreamSerialization"}},
      {"device_alloc", {"cudaMalloc"}},
      {"bf16", {"__nv_bfloat16", ".bf16"}},
      {"fp8", {"__nv_fp8", ".e4m3", ".e5m2"}},
  };
  std::vector<std::string> out;
  for (const auto& [feature, spellings] : kFeatures)
    if (std::any_of(spellings.begin(), spellings.end(),
                    [&](const std::string& s) { return code.find(s) != std::string::npos; }))
      out.push_back(feature);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ptxbench::fixit

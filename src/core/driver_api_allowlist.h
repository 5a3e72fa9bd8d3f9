// The CUDA driver API a candidate may reach, however it reaches it: imported directly (the static
// import check, compile/import_rules) or asked for at run time through an entry-point lookup
// (cuGetProcAddress, cudaGetDriverEntryPoint[ByVersion]: the worker's callback, runner/integrity).
// One list, so the two ways cannot disagree. It holds what real kernels need (tensor-map encoding,
// error strings, attributes and queries, launches, occupancy); everything else of the driver API is
// left out, so no stream, context, module, graph, memory-policy or library handle can be had.
#pragma once
#include <string>
#include <string_view>

namespace ptxbench {

// "cuLaunchKernel_ptsz" -> "cuLaunchKernel"; "cuCtxCreate_v4" -> "cuCtxCreate" (a symbol
// version, "@libcuda.so.1", is dropped first).
std::string driver_api_base_name(std::string_view name);

// True when the driver function (any version, any per-thread-stream variant) is on the list: what an
// entry-point lookup may resolve.
bool driver_api_allowed(std::string_view name);
// What a candidate may import: the list, and cuGetProcAddress itself (whose lookups are judged at
// run time; asked for through a lookup it is refused, so code loaded at run time cannot get it).
bool driver_api_importable(std::string_view name);

// A driver API name (cu + an upper-case letter), as opposed to the runtime's cuda*.
bool is_driver_api_name(std::string_view name);

}  // namespace ptxbench

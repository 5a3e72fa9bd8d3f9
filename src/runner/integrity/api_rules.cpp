// Which CUDA API calls and driver entry points candidate code may make (pure tables).
#include "runner/integrity/api_rules.h"

#include "core/driver_api_allowlist.h"

namespace ptxbench {
namespace {

struct Rule {
  std::string_view name;
  std::string_view why;
  bool even_when_nested;  // forbidden also when the runtime makes the call for the candidate
};

// Loading code is judged by what gets loaded, not by the call (the runtime itself loads the
// candidate's own fatbin through cuLibraryLoadData, from inside calls CUPTI does not always
// show): a module that is not byte-identical to one of the candidate's cubins is forbidden.
constexpr Rule kForbidden[] = {
    {"cuStreamCreate", "creates a stream", true},
    {"cuStreamCreateWithPriority", "creates a stream", true},
    {"cudaStreamCreate", "creates a stream", true},
    {"cudaStreamCreateWithFlags", "creates a stream", true},
    {"cudaStreamCreateWithPriority", "creates a stream", true},
    {"cuGreenCtxStreamCreate", "creates a stream", true},
    {"cuStreamDestroy", "destroys a stream", true},
    {"cudaStreamDestroy", "destroys a stream", true},
    {"cuMemAdvise", "changes how managed memory is placed (the advice outlives the call)", true},
    {"cudaMemAdvise", "changes how managed memory is placed (the advice outlives the call)", true},
    {"cuCtxCreate", "creates a context", true},
    {"cuGreenCtxCreate", "creates a context", true},
    {"cuCtxDestroy", "destroys a context", true},
    {"cuCtxPushCurrent", "switches contexts", true},
    {"cuCtxPopCurrent", "switches contexts", true},
    {"cuCtxSetCurrent", "switches contexts", true},
    {"cuDevicePrimaryCtxReset", "resets the device", true},
    {"cuDevicePrimaryCtxRelease", "releases the harness's context", true},
    {"cuDevicePrimaryCtxSetFlags", "changes the context's flags", true},
    {"cudaDeviceReset", "resets the device", true},
    {"cudaSetDeviceFlags", "changes the context's flags", true},
    {"cuCtxSetLimit", "changes device limits", true},
    {"cudaDeviceSetLimit", "changes device limits", true},
    {"cuCtxSetCacheConfig", "changes the device-wide cache configuration", true},
    {"cudaDeviceSetCacheConfig", "changes the device-wide cache configuration", true},
    {"cuCtxSetSharedMemConfig", "changes the device-wide shared-memory configuration", true},
    {"cudaDeviceSetSharedMemConfig", "changes the device-wide shared-memory configuration", true},
    {"cuCtxResetPersistingL2Cache", "changes the L2 persistence state", true},
    {"cudaCtxResetPersistingL2Cache", "changes the L2 persistence state", true},
    {"cuStreamSetAttribute", "changes the given stream's attributes (they outlive the call)", true},
    {"cudaStreamSetAttribute", "changes the given stream's attributes (they outlive the call)", true},
    {"cuStreamCopyAttributes", "changes a stream's attributes (they outlive the call)", true},
    {"cudaStreamCopyAttributes", "changes a stream's attributes (they outlive the call)", true},
    {"cuCtxSetFlags", "changes the context's flags", true},
    {"cuLaunchHostFunc", "runs host code after the call returns", true},
    {"cudaLaunchHostFunc", "runs host code after the call returns", true},
    {"cuStreamAddCallback", "runs host code after the call returns", true},
    {"cudaStreamAddCallback", "runs host code after the call returns", true},
    // Graphs are allowed (captured on the given stream, launched there); a host node is host code
    // run after the call returns, as cuLaunchHostFunc (a generic node of that type: the monitor
    // reads its parameters, graph_node_is_host).
    {"cuGraphAddHostNode", "adds a host node to a graph (host code run after the call returns)", true},
    {"cudaGraphAddHostNode", "adds a host node to a graph (host code run after the call returns)", true},
    {"cuGraphHostNodeSetParams", "sets a graph's host node (host code run after the call returns)", true},
    {"cudaGraphHostNodeSetParams", "sets a graph's host node (host code run after the call returns)", true},
    {"cuGraphExecHostNodeSetParams", "sets a graph's host node (host code run after the call returns)", true},
    {"cudaGraphExecHostNodeSetParams", "sets a graph's host node (host code run after the call returns)", true},
    {"cuMulticastCreate", "creates multicast objects", true},
    {"cuIpcGetMemHandle", "shares memory with another process", true},
    {"cudaIpcGetMemHandle", "shares memory with another process", true},
    {"cuIpcOpenMemHandle", "maps another process's memory", true},
    {"cudaIpcOpenMemHandle", "maps another process's memory", true},
    // Events are allowed (created, recorded and waited on the given stream: joins, programmatic
    // dependent launch, timing); shared with another process they are not.
    {"cuIpcGetEventHandle", "shares an event with another process", true},
    {"cudaIpcGetEventHandle", "shares an event with another process", true},
    {"cuIpcOpenEventHandle", "opens another process's event", true},
    {"cudaIpcOpenEventHandle", "opens another process's event", true},
};

}  // namespace

std::string api_base_name(std::string_view name) { return driver_api_base_name(name); }

bool entry_point_allowed(std::string_view symbol) { return driver_api_allowed(symbol); }

std::string forbidden_api_reason(std::string_view api, bool top_level) {
  const std::string base = api_base_name(api);
  for (const auto& r : kForbidden)
    if (base == r.name && (top_level || r.even_when_nested)) return std::string(r.why);
  return "";
}

bool enqueues_gpu_work(std::string_view api) {
  const std::string b = api_base_name(api);
  return b.starts_with("cuLaunch") ? b != "cuLaunchHostFunc"
                                   : b == "cuGraphLaunch" || b.starts_with("cuMemcpy") || b.starts_with("cuMemset");
}

bool is_kernel_launch(std::string_view api) {
  const std::string b = api_base_name(api);
  return b == "cuLaunchKernel" || b == "cuLaunchKernelEx" || b == "cuLaunchCooperativeKernel";
}

}  // namespace ptxbench

// The stream a driver API call enqueues its work (or its ordering) on, read from the call's
// parameters in CUPTI's callback: every copy, set, prefetch, discard, stream-ordered allocation,
// event record, stream wait, memory operation, semaphore, capture, graph upload and launch. The
// callback sees each call however the candidate found the function (an import, the runtime, an
// entry-point lookup), so work on a stream the harness did not give is seen at the call, whether
// or not an activity record of it ever arrives (a prefetch has none).
#pragma once
#include <cuda.h>

#include <optional>
#include <string_view>

namespace ptxbench {

// The stream argument of `api` (CUPTI's function name, e.g. "cuMemPrefetchAsync_v2_ptsz"), or
// nullopt when the call takes no stream this table knows. `params` is CUPTI's functionParams.
std::optional<CUstream> stream_argument(std::string_view api, const void* params);
// The same, with the name looked up once per driver callback id (`cbid`): every driver call of the
// candidate passes here, and a candidate may make millions (measured on the H200: 5.4 s of name
// lookups for an attack that probes device memory with cuPointerGetAttribute).
std::optional<CUstream> stream_argument(uint32_t cbid, std::string_view api, const void* params);

// A graph node of the host type added or set through the generic node calls (cuGraphAddNode,
// cuGraphNodeSetParams, cuGraphExecNodeSetParams): host code the graph runs after the call returns.
bool graph_node_is_host(std::string_view api, const void* params);

}  // namespace ptxbench

// Which CUDA API calls candidate code may make (pure tables, unit-tested).
//  - Driver entry points a candidate asks for at run time (cuGetProcAddress,
//    cudaGetDriverEntryPoint[ByVersion]) resolve only when on a short allowlist: what real kernels
//    need (tensor-map encoding, error strings, attributes, launches). Everything else is answered
//    "not found" and reported, so a stream, context, module or library handle cannot be had that way.
//  - Calls that change state the harness or the baseline depends on, create streams or contexts,
//    or run host code after the call returns are forbidden wherever they are reached from (the
//    callback sees every call, however the candidate found the function). Loaded code is judged
//    by its bytes instead (see audit()). A stream or context that comes into being by any route
//    (the resource callback) is judged too (CreatedStream in observations.h).
//  - Events and graphs are allowed: created, recorded, waited on, captured, uploaded and launched
//    on the given stream (any other stream is foreign_stream, judged at the call); events shared
//    with another process and graph host nodes (host code after the call) are forbidden.
#pragma once
#include <string>
#include <string_view>

namespace ptxbench {

// "cuLaunchKernel_ptsz" -> "cuLaunchKernel"; "cuCtxCreate_v4" -> "cuCtxCreate".
std::string api_base_name(std::string_view name);

bool entry_point_allowed(std::string_view symbol);

// Why candidate code may not call `api` (a driver or runtime API name, as CUPTI names it); empty
// when it may. `top_level`: the candidate called it itself (not the runtime on its behalf).
std::string forbidden_api_reason(std::string_view api, bool top_level);

// APIs whose call enqueues GPU work that an activity record will describe.
bool enqueues_gpu_work(std::string_view api);
// Of those, single-kernel launches (exactly one kernel record each).
bool is_kernel_launch(std::string_view api);

}  // namespace ptxbench

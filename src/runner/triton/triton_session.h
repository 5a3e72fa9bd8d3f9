// A Triton candidate in the worker (the language's side of candidate_library.h). The judge gives the
// job a "triton" block (src/judge/stages/triton_gpu_prepare.h) and, as the candidate's shared object,
// a shim whose C entry forwards every call here (ptxbench_triton_call); this starts the
// toolchain's interpreter, runs triton_track/ptxbench_triton/worker_side.py, and warms every kernel
// the job's calls need while the candidate is being loaded (after that the candidate filters refuse
// file opens and executable mappings). Every defence of the worker applies to the calls unchanged.
#pragma once
#include "core/json.h"
#include "runner/result_channel.h"

namespace ptxbench {

// Inside the candidate's load: the interpreter, the candidate imported, every kernel and launcher
// loaded. A candidate's error ends the worker as runtime_error (through `channel`); a broken
// configuration throws Error. Returns the global scratch (bytes) the warmed launches need.
size_t start_session(const json& triton, ResultChannel& channel);

// The harness's memory for that scratch (outside any candidate call).
void give_scratch(size_t bytes);

}  // namespace ptxbench

// Called by the shim's entry with the C arguments as integers, the stream last. 0 when the
// candidate's entry returned; otherwise the worker has already ended (runtime_error, with the
// exception's text).
extern "C" int ptxbench_triton_call(const unsigned long long* values, int count);

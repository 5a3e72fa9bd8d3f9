// The worker's stages. Each reports over the channel and returns whether the candidate passed;
// a crash, hang or CUDA error ends the worker from inside (runtime_error).
#pragma once
#include "core/json.h"
#include "runner/worker_context.h"

namespace ptxbench {

// Every (shape, seed): fresh inputs, reference first, NaN-poisoned output, one call, full check.
bool run_correctness(WorkerContext& ctx, const json& job);
// One call with the legacy stream held back: output made off the harness stream shows up missing.
bool run_stream_discipline(WorkerContext& ctx, const json& job);
// Timed shapes; fails when a timed output fails its check or a time is below the hardware floor.
bool run_timing(WorkerContext& ctx, const json& job);
// One call on a small shape (run under compute-sanitizer by the parent).
void run_single_call(WorkerContext& ctx, const json& shape, double flops, bool nvtx_range);
// The harness's own reference checked against fp64 on the CPU, and the baseline against it.
void run_self_test(WorkerContext& ctx, const json& job);

}  // namespace ptxbench

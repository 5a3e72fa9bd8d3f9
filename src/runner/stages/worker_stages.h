// The worker's stages, one file each in runner/stages/ named as their host side in
// judge/stages/ (checked_call.h is what they share). Each reports over the channel and returns
// whether the candidate passed; a crash, hang or CUDA error ends the worker from inside (runtime_error).
#pragma once
#include "core/json.h"
#include "core/worker_protocol.h"
#include "runner/worker_context.h"

namespace ptxbench {

// Every (shape, seed): fresh inputs, NaN-poisoned output, one call; then the inputs generated
// again, the reference computed from them, and the full check.
// Before the candidate loads, with the service's reference pool: the job's pooled seeds noted, and
// the references of its fresh sets computed, handed to the pool and zeroed here; then sealed.
void make_pooled_references(WorkerContext& ctx, const WorkerJob& job);
bool run_correctness(WorkerContext& ctx, const WorkerJob& job);
// One call with the legacy stream held back: output made off the harness stream shows up missing.
bool run_stream_discipline(WorkerContext& ctx, const WorkerJob& job);
// Executed instructions counted in-process on checked calls (one per listed shape). Returns
// false when a counted call was wrong (an incorrect candidate); a counting tool failure is
// reported as such, never charged to the candidate.
bool run_target_count(WorkerContext& ctx, const WorkerJob& job);
// The baseline alone on every timed shape, before the candidate is loaded.
void run_clean_baseline(WorkerContext& ctx, const WorkerJob& job);
// Timed shapes; fails when a timed output fails its check, a time is below the hardware floor,
// or the library ran markedly slower beside the candidate than alone.
bool run_timing(WorkerContext& ctx, const WorkerJob& job);
// The GPU activity audit so far (synchronizes); false, with an integrity stage, on a violation.
bool run_integrity_audit(WorkerContext& ctx, const std::string& after, bool final_report);
// One call on a small shape (run under compute-sanitizer or ncu by the parent); with
// `check`, the call's output is also fully checked (a counted call must be a checked one).
void run_single_call(WorkerContext& ctx, const json& shape, double flops, bool nvtx_range, bool check,
                     const json& tolerances);
// The harness's own reference checked against fp64 on the CPU, and the baseline against it.
void run_self_test(WorkerContext& ctx, const WorkerJob& job);

}  // namespace ptxbench

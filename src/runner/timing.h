// Timing of one shape: candidate and baseline interleaved in one process, CUDA events on the
// harness stream, fresh inputs and a cold L2 before every sample, every timed output checked
// after the call (inputs generated again, then a secret drawn for the randomized check), NVML
// clocks around the samples, and the hardware floor below which a time is impossible. The
// baseline is also timed alone before the candidate is loaded (and again after, when the two
// disagree), so a candidate that slows the library down is caught.
#pragma once
#include "core/json.h"
#include "runner/sampling_rule.h"
#include "runner/worker_context.h"

namespace ptxbench {

// Returns the shape's timing record; ends the worker on a candidate failure. With `count_timed`
// (and a counter), one secretly chosen candidate sample has its instructions counted.
json time_shape(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg, bool count_timed);

// The baseline's warm-up calls alone on `shape`: its plans built and every library it loads lazily
// (cuDNN's engine libraries, runtime-compiled kernels) loaded while no candidate filter is on.
void warm_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg);

// The library once on `shape`, with the timed samples' inputs made: its plans (cuDNN's graphs, the
// backward's forward too) built now, in shared time, rather than when the shape is set up again
// with the GPU alone (TimingConfig::library_ahead).
void library_ahead(WorkerContext& ctx, const json& shape, double flops);

// The baseline alone on `shape` (no candidate call in between).
// `lead_samples` > 0: the median of that many first samples is kept too (what a later check of as
// many samples is compared with).
CleanBaseline time_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg,
                                  int lead_samples = 0);

// The fixed health kernel (runner/calibration_kernel.cuh) on the harness's stream, announced as a
// baseline sample ("health check": candidate work beside it is overlaps_baseline), in ms (0: unknown).
double time_health_kernel(WorkerContext& ctx);

// The short check of a stored clean timing (runner/library_timing_check.h): the baseline alone on
// `shape`, warmed up and then exactly `samples` samples taken as time_baseline_alone takes them.
CleanBaseline check_baseline_alone(WorkerContext& ctx, const json& shape, double flops, const TimingConfig& cfg,
                                   int samples);

}  // namespace ptxbench

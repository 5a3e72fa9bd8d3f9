// The jobs the GPU stages give ptxbench-worker (core/worker_protocol.h is their format;
// runner/worker_main.cpp reads them): what every job of a candidate carries, one call on one shape (smoke, sanitizers,
// ncu), and the eval job (correctness on the hidden, drawn and benchmark shapes, counted calls, timing).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/json.h"
#include "core/worker_protocol.h"
#include "judge/evaluator.h"
#include "problems/problem_spec.h"

namespace ptxbench {

// `fixed` (--seed, for debugging), else fresh from std::random_device: never shown to the candidate.
uint64_t job_seed(const std::optional<uint64_t>& fixed);

// Workload, candidate, entry point, seed, device and tolerances.
WorkerJob base_job(const ProblemSpec& p, const std::filesystem::path& shared_object, uint64_t seed, int device);

WorkerJob single_call_job(const WorkerJob& base, const ProblemSpec& p, const Shape& shape, bool nvtx_range,
                          double watchdog_scale, bool check);

// The random hidden shapes of a candidate's evaluation, drawn from `seed` within the problem's
// constraints (eval_job's; a Triton candidate's preparation compiles for them too).
std::vector<Shape> drawn_shapes(const ProblemSpec& p, uint64_t seed);

// The random hidden shapes are drawn from `seed`, within the problem's constraints.
WorkerJob eval_job(const WorkerJob& base, const ProblemSpec& p, const EvalOptions& o, uint64_t seed);

}  // namespace ptxbench

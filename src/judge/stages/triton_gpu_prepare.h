// What a Triton candidate needs before its GPU stages (the CPU build compiled it for the benchmark
// shapes only, and knew no seed): its kernels compiled again, in a cache of this evaluation's own,
// for every shape the workers will call (the hidden and this seed's drawn shapes too, so the worker,
// which can compile nothing, finds every specialization), the launchers Triton needs on the GPU
// built into that cache, the shim that is the candidate's shared object for the worker
// (compile/triton_shim.h), and the job's "triton" block for src/runner/triton/triton_session.h.
#pragma once
#include <cstdint>
#include <filesystem>
#include <vector>

#include "compile/sass_listing.h"
#include "core/json.h"
#include "core/record.h"
#include "judge/evaluator.h"
#include "problems/problem_spec.h"

namespace ptxbench {

struct TritonGpuPreparation {
  StageResult stage;                            // "triton_gpu_build": ok, or failed with its verdict
  std::filesystem::path shim;                   // the worker's candidate (ok only)
  json job = json::object();                    // base_job["triton"]
  std::vector<std::filesystem::path> readable;  // for the worker: the interpreter, the tools
  // Kernel name -> {"min_box_bytes", "maps", "source"}: the TMA descriptors the kernels make on the
  // device, sized from Triton's IR at build time (the smallest box of every specialization of the
  // name), for the kernels the worker saw no encoded tensor map of (target_run_stage.cpp).
  json device_tensor_maps = json::object();
  // Each prepared cubin's SASS by "<cubin file name>/<kernel>": the worker names the cubin of each
  // count (a kernel's specializations share its name and not their offsets). Empty without cuobjdump.
  SassListing image_listing;
};

// `build_dir`: the candidate's build folder (run_triton_build left candidate.py there).
TritonGpuPreparation prepare_triton_for_gpu(const ProblemSpec& p, const EvalOptions& o,
                                            const std::filesystem::path& build_dir, uint64_t seed);

}  // namespace ptxbench

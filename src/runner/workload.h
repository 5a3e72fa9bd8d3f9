// A workload is the worker's side of one problem: it owns the device buffers for a shape, makes
// inputs, calls the candidate through the problem's C ABI, computes the reference, checks
// outputs, runs the baseline, and checks every timed call cheaply. Each problem adds one
// problems/<name>/workload.cu that defines a Workload and registers it by name.
//
// No secret exists while candidate code runs: the harness calls the candidate first, then
// generates the inputs again from their seed (undoing anything the call changed, InputGuard says
// what), and only then computes the reference or draws the timed check's secret. A workload must
// therefore keep nothing a check needs in device memory across a candidate call, and generate
// its inputs deterministically from the seed.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"

namespace ptxbench {

using WorkloadShape = std::map<std::string, long long>;

struct CheckOutcome {
  bool passed = false;
  std::string summary;  // one line: what failed, where and by how much
  json detail = json::object();
};

// Fails `outcome` when the call changed inputs: `changed` names them ("A", "K and dO"); "" = none.
void fail_if_inputs_modified(CheckOutcome& outcome, const std::string& changed);

// One input buffer of a workload, as the candidate receives it.
struct InputView {
  std::string name;
  const void* data = nullptr;
  size_t bytes = 0;
};

// One device buffer that compute_reference fills (what the service's reference pool keeps).
struct ReferenceBuffer {
  std::string name;
  void* data = nullptr;
  size_t bytes = 0;
};

// Result of the cheap check of one timed call.
struct TimedCheck {
  bool output_finite = true;
  bool projection_ok = true;     // randomized projection (e.g. Freivalds) agrees with the inputs
  bool inputs_unchanged = true;  // filled by the harness (InputGuard), not the workload
  float worst_ratio = 0;         // worst |observed - expected| / tolerance over the projection
  bool ok() const { return output_finite && projection_ok && inputs_unchanged; }
};

class Workload {
 public:
  virtual ~Workload() = default;

  // Once, before anything else: the problem's [workload_options] (e.g. causal = true, when one
  // workload serves several problems) and the job's per-output tolerances (for the timed-call
  // check, which has no other way to see them). A workload that takes no options refuses any.
  virtual void configure(const json& options, const json& /*tolerances*/) {
    if (!options.empty()) fail("this workload takes no options, got " + options.dump());
  }

  virtual void prepare(const WorkloadShape& shape) = 0;  // allocate or reuse buffers
  virtual void generate_inputs(uint64_t seed, cudaStream_t s) = 0;
  // Fresh inputs for one timed sample (the timed-call check recomputes what it expects from them).
  // By default generate_inputs; a workload whose inputs need an expensive derivation may derive
  // them faster here, as long as they stay as consistent as the problem promises.
  virtual void generate_timing_inputs(uint64_t seed, cudaStream_t s) { generate_inputs(seed, s); }
  // Inputs that generate_timing_inputs, called again with a sample's seed after its call, restores
  // from a copy this workload made on the first call with that seed instead of deriving them again
  // (the backward's O and LSE: a second library forward per sample). The copy is in device memory
  // during the call, so the harness fingerprints these inputs before the call too (InputGuard).
  virtual std::vector<std::string> kept_timing_inputs() const { return {}; }
  virtual void poison_outputs(cudaStream_t s) = 0;  // NaN everywhere the candidate must write
  virtual cudaError_t call_candidate(void* entry, cudaStream_t s) = 0;
  virtual void call_baseline(cudaStream_t s) = 0;
  virtual json baseline_info() const = 0;  // library, version, algorithm chosen

  // The inputs the candidate receives (fingerprinted by the harness before and after each call).
  virtual std::vector<InputView> inputs() const = 0;

  // The reference for the current inputs, in fp32 or better; computed after the candidate's call,
  // from inputs generated again.
  virtual void compute_reference(cudaStream_t s) = 0;
  // Full check of the last call against that reference: tolerance per output, NaN/Inf never pass.
  // Synchronizes `s`. (Whether the call changed its inputs is the harness's check.)
  virtual CheckOutcome check(const json& tolerances, cudaStream_t s) = 0;
  // The buffers compute_reference fills, allocated and sized for the current shape: what the
  // service's reference pool (judge/caches/reference_pool.h) keeps outside the candidate's
  // process and writes back after the call. check() must need nothing else that
  // compute_reference makes. Empty: this workload's references are not pooled.
  virtual std::vector<ReferenceBuffer> reference_buffers() { return {}; }
  // Whether check() may use what reference_buffers() hold (true once they were written back for
  // the current inputs; false after they were zeroed).
  virtual void set_reference_ready(bool /*ready*/) {}
  // Validates the reference itself against an fp64 CPU computation (small shapes only).
  virtual json validate_reference_fp64(cudaStream_t s) = 0;

  // The cheap check of a timed call, after the call completed and its inputs were generated again:
  // everything it draws (sign vectors, sampled rows) comes from `secret`, drawn by the harness only
  // then, into result slot `slot`; results() syncs and reads the slots.
  virtual void check_timed_call(int slot, uint64_t secret, cudaStream_t s) = 0;
  virtual std::vector<TimedCheck> timed_check_results(int count) = 0;
  virtual void reset_timed_checks(int capacity) = 0;

  // Output snapshot for the stream-discipline check: copy the outputs on `s`, then later compare
  // with the outputs once the whole device is idle.
  virtual void snapshot_outputs(cudaStream_t s) = 0;
  virtual bool snapshot_matches_outputs() = 0;

  // Tensor-core class of the arithmetic, for the hardware floor: "bf16" or "fp8" (dense).
  virtual std::string math_class() const = 0;
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;
struct RegisteredWorkload {
  WorkloadFactory make;
  std::vector<std::string> baselines;  // the baseline names problem.toml may give this workload
};
std::map<std::string, RegisteredWorkload>& workload_registry();
std::unique_ptr<Workload> make_workload(const std::string& name);  // throws Error if unknown

struct WorkloadRegistrar {
  WorkloadRegistrar(const std::string& name, WorkloadFactory f, std::vector<std::string> baselines) {
    workload_registry()[name] = {std::move(f), std::move(baselines)};
  }
};

}  // namespace ptxbench

// PTXBENCH_REGISTER_WORKLOAD("gemm", GemmWorkload, "cublaslt"): the name problem.toml's `workload`
// gives, the class, and the baselines it implements. Keep it on one line: the parent reads these
// lines at configure time (cmake/known_workloads.cmake) to check specs without a GPU.
#define PTXBENCH_REGISTER_WORKLOAD(name, Type, ...)               \
  static ::ptxbench::WorkloadRegistrar ptxbench_registrar_##Type( \
      name, [] { return std::make_unique<Type>(); }, std::vector<std::string>{__VA_ARGS__})

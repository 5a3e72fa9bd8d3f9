// Watches the GPU from inside the worker with CUPTI: callbacks on every driver and runtime API
// call and on module loads (who called, refused entry points, forbidden calls), on every stream or
// context created (by any route), and activity records of every kernel, copy and set as it ran
// (stream, time). The harness announces whose code runs on its thread (CallScope); a call on any
// other thread once the candidate began loading is the candidate's (Actor::candidate_thread). It
// reads everything back as Observations for audit().
//
// One per process (CUPTI's callbacks are process-wide). Not used under compute-sanitizer or ncu,
// which inject their own tools.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/integrity/cubin_image.h"
#include "runner/integrity/observations.h"
#include "runner/integrity/tensor_maps.h"

namespace ptxbench {

class GpuActivityMonitor {
 public:
  // Subscribes and starts the activity records; `given_stream` is the stream every candidate
  // call gets. Throws Error with CUPTI's message when tracing cannot start.
  static GpuActivityMonitor& start(cudaStream_t given_stream);
  static GpuActivityMonitor* instance();  // null before start()

  // The cubins of the candidate's shared object, read from the file before it is loaded.
  void expect_candidate_images(std::vector<CubinImage> images);

  // Announces a candidate call, a baseline sample, or the loading of the candidate; returns its
  // index. Until end_call(), every API call made on this thread is attributed to it.
  int begin_call(Actor actor, const std::string& what, const std::string& shape, bool counted = false);
  void end_call();
  int last_call() const;  // index of the most recent call
  // The kernels whose instructions a counted call executed (from the counts: graph launches and
  // every other way of launching included).
  void record_counted_kernels(int call, std::vector<std::string> kernels);
  // A counted call of an earlier worker of the same job, on `shape` (the service's split).
  void record_earlier_counted_call(std::string shape, std::vector<std::string> kernels);

  // SASS counting and kernel activity records cannot be on together (counts read 0, measured on
  // the H200): kernel records pause for a counted call, whose launches the callbacks judge.
  void pause_kernel_records();
  void resume_kernel_records();

  // The tensor maps the candidate encoded that `function` was launched with (tensor_maps.h).
  std::optional<KernelMaps> tensor_maps_of(const std::string& function) const;
  // The smallest share of a box its tensor fills, over every map the candidate's kernels were given.
  double tma_box_fill() const;
  // A kernel of a module byte-identical to one of the candidate's cubins.
  bool is_candidate_function(const std::string& function) const;
  bool knows_candidate_functions() const;  // a module of the candidate's was seen loading
  // Host time the callbacks spent on tensor maps and stream arguments (the accounting's cost).
  double map_and_stream_seconds() const;

  // Delivers every pending record (synchronize the device first for complete results).
  void flush();
  Observations observations() const;

  struct State;

 private:
  explicit GpuActivityMonitor(cudaStream_t given_stream);
  std::unique_ptr<State> state_;
};

// RAII, on the harness's thread: a section where the harness itself (its code, its libraries'
// plans, the counters' sessions) may create a stream. Once the candidate began loading, a stream
// created anywhere else (another thread, a candidate call, the harness's thread outside such a
// section or a baseline sample) is the candidate's: forbidden_api. The marker is thread-local.
class HarnessStreamScope {
 public:
  HarnessStreamScope();
  ~HarnessStreamScope();
  HarnessStreamScope(const HarnessStreamScope&) = delete;
  HarnessStreamScope& operator=(const HarnessStreamScope&) = delete;
};

// RAII: begin_call/end_call around one call; a no-op when no monitor runs.
class CallScope {
 public:
  CallScope(Actor actor, const std::string& what, const std::string& shape, bool counted = false);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  bool active_ = false;
};

}  // namespace ptxbench

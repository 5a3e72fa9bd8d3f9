// What every worker stage needs: the GPU, the harness's stream, the candidate, the workload, the
// report channel, the watchdog, the input guard, and where seeds and secrets come from.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/json.h"
#include "probes/nvml_monitor.h"
#include "runner/detail/device_buffer.h"
#include "runner/input_guard.h"
#include "runner/integrity/observations.h"
#include "runner/integrity/sass_counter.h"
#include "runner/integrity/work_counters.h"
#include "runner/result_channel.h"
#include "runner/watchdog.h"
#include "runner/workload.h"

namespace ptxbench {

struct CleanBaseline {
  double median_ms = 0, median_error = 0;
  int samples = 0;
  double sm_clock_mhz = 0;
  double seconds = 0;  // from the exclusive grant (its wait not counted) to the last sample
  // The median of the first lead_samples samples (0: not asked for): runner/library_timing_check.h.
  double lead_median_ms = 0;
  int lead_samples = 0;
};

struct WorkerContext {
  WorkerContext(ResultChannel& c, Watchdog& w, Workload& wl) : channel(c), watchdog(w), workload(wl) {}
  ResultChannel& channel;
  Watchdog& watchdog;
  Workload& workload;
  void* entry = nullptr;  // the candidate's entry point (null in baseline-only modes)
  CudaStream stream;
  NvmlMonitor nvml;
  InputGuard guard;
  int cc_major = 0, cc_minor = 0, sm_count = 0, device = 0;
  std::string gpu_name;
  // The GPU's UUID, driver and clock/power state, as the hello reported them: with the library's
  // version and plan, what a stored clean timing is matched by (runner/library_timing_check.h).
  json timing_environment = json::object();
  bool accounting = false;               // the GPU activity monitor runs (eval jobs outside sanitizer/profiler)
  std::unique_ptr<SassCounter> counter;  // in-process executed-instruction counts
  std::string counter_unavailable;       // why there is no counter (a tool reason)
  // The timed samples' target work, read with nothing patched (runner/timed_work.h); null where the
  // range profiler cannot run (work_counters_unavailable says why): then the secretly counted sample.
  std::unique_ptr<WorkCounters> work_counters;
  std::string work_counters_unavailable;
  std::map<std::string, CleanBaseline> clean_baseline;  // by shape label, measured before the candidate loaded
  // Before the candidate loaded (after the clean timings): the GPU's state (NVML) and the fixed
  // health kernel's time (0: not timed). What a cool-down after a hot candidate goes back to, and
  // what says whether the GPU itself got slower (runner/baseline_drift.h).
  GpuState before_candidate;
  double health_reference_ms = 0;
  // The timed worker under the service's lane gate starts while its GPU is shared, and asks for
  // exclusive use on this socket just before its first timed sample, and for the library's clean
  // timings before its candidate loads (judge/exclusive_handshake.h, core/exclusive_grant.h);
  // -1: the GPU is this worker's alone from the start (or the job times nothing).
  int exclusive_gpu_fd = -1;
  bool clean_baseline_exclusive = false;  // granted for the clean timings, not yet given back
  // Since when the GPU is this worker's alone (its grant received; kept through the candidate's
  // load when the clean timings' grant is not given back), and when the clean timings ended with it
  // still held: what the exclusive window spent on, reported by the stages that spend it.
  std::optional<std::chrono::steady_clock::time_point> alone_since, clean_timings_ended;
  // Seconds of [from, now) with the GPU alone (0 when it is not).
  double seconds_alone_since(std::chrono::steady_clock::time_point from) const;
  // The service's reference pool (runner/reference_client.h); -1: every check computes its own
  // reference. pooled_seeds: per correctness item (its index in the job), the seeds of the sets
  // whose references the pool holds, used in order by that item's first checks. Per item, not per
  // shape: a drawn shape can be one of the fixed ones, and each set's reference is handed over once.
  int reference_fd = -1;
  std::map<size_t, std::vector<uint64_t>> pooled_seeds;
  // A shared worker's pause socket (runner/shared_pause.h); -1: it never pauses. pauses: how often it did.
  int pause_fd = -1;
  int pauses = 0;
  // Asks for the GPU alone and waits for the answer: before the candidate loads, for the library's
  // clean timings (given back with give_back_exclusive_gpu); once it loaded, for the timed samples,
  // and then closes the socket (later calls return at once). A refusal ends the worker as
  // infra_error, a failed handshake after the load as forbidden. Called before each timed loop.
  void take_exclusive_gpu();
  // After the clean timings, before the candidate loads: the GPU shared again once the harness
  // answers. A no-op unless the clean timings took it.
  void give_back_exclusive_gpu();

  // Input seeds and check secrets are drawn fresh from the OS when needed, so none exists before
  // it is used (a job may ask for a fixed sequence, for debugging only).
  uint64_t draw_seed();
  void use_fixed_seeds(uint64_t seed) { fixed_ = true, rng_.seed(seed); }
  bool fixed_seeds() const { return fixed_; }

 private:
  bool fixed_ = false;
  std::mt19937_64 rng_;
};

// Seconds a candidate call may take before the watchdog calls it a hang. Under a sanitizer or a
// profiler every kernel runs many times slower, so the job can scale the limit (watchdog_scale).
double call_time_limit(double flops);
void set_time_limit_scale(double scale);

// Calls the candidate on the harness stream (announced to the activity monitor as a call of
// `stage` on `shape`) and waits for it under the watchdog; a CUDA error (returned, launch or
// sticky) ends the worker with runtime_error naming `what`.
void call_candidate_checked(WorkerContext& ctx, const std::string& what, double flops, const std::string& stage,
                            const std::string& shape, bool counted = false);

// After a candidate call on inputs made from `seed`: fingerprints them as the call left them,
// generates them again (the correctness or the timing variant), fingerprints again (slot `slot`).
void regenerate_inputs(WorkerContext& ctx, uint64_t seed, bool timing, int slot);

std::string shape_label(const json& shape);

}  // namespace ptxbench

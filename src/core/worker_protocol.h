// The worker protocol in one place: the job the judge writes for ptxbench-worker (judge/stages/
// worker_jobs.cpp builds it, judge/worker_client.cpp adds the launch's fields and writes the file,
// runner/worker_main.cpp reads it back) and the report's envelope (the event types, the hello and
// the fatal event; runner/result_channel.h signs the lines, judge/result_lines.h verifies them).
//
// Both sides check the version: the judge stamps kWorkerProtocolVersion into every job and
// refuses a worker whose hello names another one (or none); the worker refuses a job of another
// version before it does anything else. A change to a key's name, type or meaning raises it.
//
// Shapes stay JSON objects (dimension -> extent): core knows no problem spec, and a shape's dump
// is the key of the pools and caches that hold per-shape data.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/json.h"

namespace ptxbench {

inline constexpr int kWorkerProtocolVersion = 4;
inline constexpr const char* kWorkerProtocolKey = "protocol";

// A job or an event that does not follow the protocol: the key (with its path) is in the message.
class WorkerProtocolError : public InputError {
 public:
  using InputError::InputError;
};

// Throws WorkerProtocolError unless `message` (a job or a hello; `what` names it in the error)
// carries kWorkerProtocolVersion.
void check_worker_protocol(const json& message, std::string_view what);

// ---- the job ----

// A correctness item's reference-pool plan (judge/caches/reference_pool.h): the seeds of pooled
// sets to use first, and how many sets the worker makes fresh before the candidate loads.
struct ReferencePoolPlan {
  std::vector<uint64_t> seeds{};
  int fresh = 0;
};

// One correctness shape: `seeds` checks, each with fresh inputs.
struct CorrectnessItem {
  json shape = json::object();
  int seeds = 0;
  bool hidden = false;
  bool drawn = false;  // drawn fresh for this candidate: never pooled
  double flops = 0;
  std::optional<ReferencePoolPlan> pool{};
};

// A shape counted or timed.
struct ShapeWork {
  json shape = json::object();
  double flops = 0;
};

// The kernels an earlier worker's counted call ran on a shape (the timed part of a split job).
struct CountedKernels {
  json shape = json::object();
  std::vector<std::string> kernels{};
};

struct WorkerJob {
  int protocol = kWorkerProtocolVersion;
  // "eval", "single_call", "self_test"; "info" (--info: the job carries the key only); other
  // executables that speak the channel use their own ("probe": the health probe).
  std::string mode;

  // What every job of a candidate carries (worker_jobs.h base_job).
  std::string workload;
  json workload_options = json::object();
  std::optional<std::string> candidate;  // the shared object; none: a baseline-only job (self_test)
  std::string entry;                     // the candidate's C entry point (with `candidate`)
  uint64_t seed = 0;
  int device = 0;
  json tolerances = json::object();  // output -> {rtol, atol, max_rel_l2}
  std::optional<json> triton;        // a Triton candidate's interpreter and kernels (triton_gpu_prepare.h)

  // Added by the launch (worker_client.cpp): the result channel's key (taken out of the job before
  // anything else runs), the sandbox's flags (runner/sandbox_guard.h), the sockets' descriptors.
  std::optional<std::string> channel_key;
  std::optional<json> sandbox;
  int exclusive_gpu_fd = -1;
  int reference_pool_fd = -1;
  int pause_fd = -1;  // a shared worker's pause socket (core/shared_pause.h)

  // single_call: one call on `shape` (under compute-sanitizer or ncu).
  json shape = json::object();
  double flops = 0;
  bool nvtx_range = false;
  double watchdog_scale = 1.0;
  bool check = false;

  // eval: correctness, counted calls, timing.
  bool accounting = true;
  std::optional<uint64_t> fixed_seed;
  std::vector<CorrectnessItem> correctness;
  json gate_shape = json::object();  // the stream-discipline call's shape
  double gate_flops = 0;
  std::optional<std::vector<ShapeWork>> count;   // the shapes of the counted calls; none: no counting
  std::optional<std::vector<ShapeWork>> timing;  // the timed shapes; none: no timing
  std::optional<json> timing_config;             // runner/timing.h TimingConfig
  bool stream_discipline = true;
  bool counted_calls = true;  // false: the timed part of a split job (its counted sample only)
  std::optional<std::vector<CountedKernels>> earlier_counted_kernels;
  std::optional<json> baseline_alone_cache;         // shape dump -> clean timing (judge/caches/baseline_cache.h)
  std::optional<json> library_timing_cache;         // shape dump -> stored rows (docs/library-timing-cache.md)
  std::optional<int> library_timing_check_samples;  // none: runner's kLibraryCheckSamples

  // self_test: the harness's reference against fp64, and the baseline against the reference.
  std::vector<json> fp64_shapes, baseline_shapes;

  bool has_correctness() const { return !correctness.empty(); }
};

// The job as its JSON: only the keys its mode uses, and optional ones only when set.
json to_json(const WorkerJob& job);
// Throws WorkerProtocolError naming the key when one its mode needs is missing, when a key has the
// wrong type, or when the protocol version is not kWorkerProtocolVersion.
WorkerJob parse_worker_job(const json& j);
// `job` with the protocol version added where it has none: for jobs written as JSON by hand (the
// GPU tests' self_test jobs, the health probe's and the simulated worker's).
json stamped_job(json job);

json to_json(const ShapeWork& w);
json to_json(const std::vector<ShapeWork>& list);
json to_json(const CorrectnessItem& item);

// ---- the report ----

// Every event type a worker may report (anything else on the channel is tampering).
const std::vector<std::string_view>& worker_event_types();

// The first event of every job: the GPU and the protocol the worker speaks.
struct WorkerHello {
  int protocol = kWorkerProtocolVersion;
  std::string gpu;  // the device's name
  std::string cc;   // "9.0"
  int device = 0;
  int sm_count = 0;
  uint64_t memory_bytes = 0, l2_bytes = 0;
  int cuda_runtime = 0, cuda_driver = 0;
  json timing_environment = json::object();  // runner/library_timing_check.h
};
json to_json(const WorkerHello& hello);
// Throws WorkerProtocolError (the version first, then any key that is missing or mistyped).
WorkerHello parse_worker_hello(const json& j);
// "" when `hello` speaks this protocol, else why not (for the run's fatal error).
std::string worker_protocol_mismatch(const json& hello);

// The last event of a worker that could not finish its job.
struct WorkerFatal {
  std::string verdict;  // "runtime_error", "forbidden", "infra_error", "cuda_error", ...
  std::string message;
};
json to_json(const WorkerFatal& fatal);
WorkerFatal parse_worker_fatal(const json& j);

}  // namespace ptxbench

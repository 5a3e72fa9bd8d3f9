// What the worker sees of the GPU while a candidate is loaded: every host call that enqueued GPU
// work (who made it, and when), every piece of work as it ran (CUPTI activity records), every
// module the driver loaded, and every refused or forbidden API call. Filled by GpuActivityMonitor,
// judged by audit(); plain data so the rules are tested on the CPU.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench {

// Whose code was running on the host when a call was made. The harness makes its calls from one
// thread (the worker's main thread), and announces whose code runs there (CallScope); a call made
// on any other thread once the candidate's library is loading is candidate_thread: a thread the
// candidate started (through libc's symbol table, say), whatever the harness's thread is doing.
enum class Actor : uint8_t { harness, baseline, candidate_load, candidate_call, candidate_thread };
std::string_view to_string(Actor a);
inline bool is_candidate(Actor a) {
  return a == Actor::candidate_load || a == Actor::candidate_call || a == Actor::candidate_thread;
}

// One candidate call or baseline sample, as the harness announced it.
struct CallInfo {
  int index = 0;
  Actor actor = Actor::candidate_call;
  std::string what;      // "correctness", "timing", "target_run", ...
  std::string shape;     // shape label
  bool counted = false;  // SASS counting was on: no activity records, launches judged from the callback
  std::vector<std::string> counted_kernels;  // of a counted call: the kernels whose instructions executed
};

// One host API call that enqueues GPU work (driver-API callback, at the call); for candidate code
// also every other call that names a stream for its work (a prefetch, an event record, a stream
// wait, a stream-ordered allocation, a capture ...) when that stream is not the given one.
struct Launch {
  uint32_t correlation = 0;
  Actor actor = Actor::harness;
  int call = -1;                // CallInfo::index; -1 outside any call
  std::string api;              // cuLaunchKernel, cuLaunchKernelEx, cuGraphLaunch, cuMemcpyAsync, ...
  std::string function;         // the kernel's name when the call names one (candidate calls only)
  bool kernel_launch = false;   // a single kernel: exactly one activity record must follow
  bool on_given_stream = true;  // the stream argument (if the call has one) is the stream the candidate was given
  bool captured = false;        // into a stream being captured (runs later, as a graph)
  bool counted = false;         // made while kernel records were paused (a counted call): no record is owed
};

// One piece of GPU work as it ran (activity record).
struct DeviceWork {
  enum class Kind : uint8_t { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  uint32_t correlation = 0;
  uint32_t stream = 0;          // CUPTI's stream id
  uint64_t start = 0, end = 0;  // ns, CUPTI's clock
  std::string name;             // kernel name (mangled); empty for copies and sets
  bool graph = false;
  uint32_t context = 0;  // CUPTI's context id (stream ids are compared within one context); 0 unknown
};

struct LoadedModule {
  uint32_t id = 0;
  Actor actor = Actor::harness;
  int call = -1;
  bool candidate_image = false;  // byte-identical to a cubin of the candidate's shared object
  size_t bytes = 0;
  std::vector<std::string> functions;
};

// An API call made by candidate code that the rules refuse (answered "not found") or forbid.
struct ApiEvent {
  Actor actor = Actor::candidate_call;
  int call = -1;
  std::string api;       // e.g. "cuGetProcAddress(cuStreamCreate)", "cuStreamCreate"
  bool refused = false;  // refused: the candidate got CUDA_ERROR_NOT_FOUND; else it ran and is forbidden
};

// A stream (or context) that came into being while the candidate's library was loaded (CUPTI's
// resource callback, however it was created: runtime, driver, an entry point, a thread). The
// harness marks the sections where it (its libraries, its counters) may create one itself
// (HarnessStreamScope); every other creation is the candidate's.
struct CreatedStream {
  Actor actor = Actor::harness;  // whose code ran on the creating thread (Actor::candidate_thread: another thread)
  int call = -1;
  bool harness_thread = true;   // created on the harness's thread
  bool marked = false;          // inside a section the harness marked as creating its own streams (or a baseline call)
  bool context = false;         // a context, not a stream
  std::string api;              // the API call it was created in (empty: none, the driver's own)
  uint32_t stream = 0;          // CUPTI's stream id (0 unknown)
  uint32_t stream_context = 0;  // CUPTI's context id of the stream (0 unknown)
};
// Whether the harness created it itself: on its thread, outside candidate code, in a section it
// marked (or in no API call: CUPTI's or the driver's own work for it). On any other thread: never.
bool harness_created(const CreatedStream& c);

// The kernels a counted call ran in the service's first worker of a split job (the timed worker
// compares its timed calls of the same shape with them, as one worker compares its own).
struct EarlierCountedCall {
  std::string shape;  // shape label
  std::vector<std::string> kernels;
};

struct Observations {
  std::vector<CallInfo> calls;
  std::vector<EarlierCountedCall> earlier_counted;
  std::vector<Launch> launches;
  std::vector<DeviceWork> work;
  std::vector<LoadedModule> modules;
  std::vector<ApiEvent> api_events;
  std::vector<CreatedStream> created;  // streams and contexts created once the candidate began loading
  uint32_t candidate_stream = 0;       // CUPTI stream id of the stream the candidate is given
  uint32_t candidate_context = 0;      // CUPTI context id of that stream (0 unknown: ids compared alone)
  uint64_t dropped_records = 0;        // activity records CUPTI could not deliver
  bool active = false;                 // accounting ran at all
};

struct Violation {
  std::string rule;     // foreign_stream, foreign_kernel, hidden_module, gpu_work_at_load, ran_outside_call,
                        // overlaps_baseline, forbidden_api, unaccounted_launch, counted_call_differs
  std::string message;  // names the kernel, its stream and its time
};

// The rules (docs/anti-cheat.md, "Every GPU kernel is accounted for").
std::vector<Violation> audit(const Observations& o);

}  // namespace ptxbench

// The library's clean timings kept in the workspace across evaluations and runs
// (docs/library-timing-cache.md), as the judge uses them: before the worker that times the
// library alone starts, the stored timings of each timed shape on this GPU, driver and clock state
// are put in its job (`library_timing_cache`, with the check's sample count); the worker matches
// the library version and plan, re-validates a match with a short check, and times the library in
// full on a miss or a failed check. Afterwards the timings it measured are stored (replacing the
// row of the same key), and the record's environment says what happened
// (`environment.library_timing_cache`). The storage is behind LibraryTimingSource: the service
// implements it over store/library_timing_store.h (the judge links no database).
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/worker_protocol.h"

namespace ptxbench {

struct GpuStageRun;
struct WorkerRun;

// What a stored timing is found by besides its shape.
struct LibraryTimingScope {
  std::string problem;
  json workload;       // {workload, options}: the operation and its dtypes
  json timing_config;  // the timing config the clean timings run under
  json environment;    // the worker hello's timing_environment: {gpu_uuid, driver, clocks}
};

class LibraryTimingSource {
 public:
  virtual ~LibraryTimingSource() = default;
  // The stored timings of `shape` in `scope` (any library version and plan), each a JSON object
  // with the key's fields (gpu_uuid, driver, clocks, library, library_version, plan) and its value
  // (median_ms, median_error, samples, sm_clock_mhz, measured_at). Rows that cannot be used are
  // left out, each with why in *ignored. False (and *error) when the store failed.
  virtual bool find(const LibraryTimingScope& scope, const json& shape, std::vector<json>* rows,
                    std::vector<std::string>* ignored, std::string* error) = 0;
  // Stores a measured clean timing of `shape` under the worker's `key`, replacing the row of that key.
  virtual bool put(const LibraryTimingScope& scope, const json& shape, const json& key, const json& measured,
                   std::string* error) = 0;
};

// Adds the stored timings to `job` (one that times the library alone) when the options name a
// source; the shapes in `already_cached` (the service's in-memory cache) are left to it.
void offer_library_timings(GpuStageRun& c, WorkerJob& job, const json& already_cached = json::object());
// Stores what `run` measured, and records what happened in the record's environment.
void keep_library_timings(GpuStageRun& c, const WorkerRun& run);

}  // namespace ptxbench

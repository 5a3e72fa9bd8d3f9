// The library's clean timings kept across evaluations and runs (schema_migrations.cpp, migration
// 5: table library_timings), as typed rows. One row per (GPU UUID, driver, clock and power state,
// library and version, plan, problem, workload, shape, timing config): the median of the library
// timed alone before any candidate loaded, its noise and when it was measured. What a row is used
// for (the worker's short re-validation check) is docs/library-timing-cache.md's; this is its
// storage. A row this build cannot trust (another format, a value no timing has) is never returned:
// it is listed with the reason it was ignored. Errors are DbStatus values saying what failed.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "store/workspace_db.h"

struct sqlite3;

namespace ptxbench {

struct LibraryTimingRow {
  static constexpr int kFormat = 1;  // the row format this build writes and reads
  // The key. JSON values are stored as their compact dump (nlohmann orders object keys).
  std::string gpu_uuid, driver, clocks;
  std::string library, library_version, plan;
  std::string problem, workload, shape, timing_config;
  // The value.
  int format = kFormat;
  double median_ms = 0;
  double median_error = 0;  // relative standard error of the median (runner/sampling_rule.h)
  int samples = 0;
  double sm_clock_mhz = 0;
  // The median of the timing's first lead_samples samples (runner/library_timing_check.h); 0: none.
  double lead_median_ms = 0;
  int lead_samples = 0;
  long long measured_ms = 0;
  std::string measured_at;
};

// What a lookup asks: everything the parent knows before the worker starts (the worker itself
// matches the library, its version and the plan, which only it can read).
struct LibraryTimingQuery {
  std::string gpu_uuid, driver, clocks;
  std::string problem, workload, shape, timing_config;
};

struct LibraryTimingLookup {
  std::vector<LibraryTimingRow> rows;  // usable rows (any library version and plan)
  std::vector<std::string> ignored;    // rows of this key that were not returned, each with why
};

class LibraryTimingStore {
 public:
  // Opens (creating if needed) the database file (WAL) and brings the table up to date.
  explicit LibraryTimingStore(const std::filesystem::path& db_path);
  ~LibraryTimingStore();
  LibraryTimingStore(const LibraryTimingStore&) = delete;
  LibraryTimingStore& operator=(const LibraryTimingStore&) = delete;
  const DbStatus& status() const { return status_; }

  DbStatus find(const LibraryTimingQuery& q, LibraryTimingLookup* out);
  // Inserts the row, replacing the one with the same key.
  DbStatus put(const LibraryTimingRow& row);

 private:
  sqlite3* db_ = nullptr;
  DbStatus status_;
};

// Why a row read back cannot be used ("" when it can): another format, or a value no clean timing has.
std::string why_unusable(const LibraryTimingRow& row);

}  // namespace ptxbench

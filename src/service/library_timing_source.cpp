// The judge's LibraryTimingSource over the workspace's library_timings table, opened on first use.
#include "service/library_timing_source.h"

#include <chrono>
#include <mutex>
#include <optional>

#include "core/timestamp.h"
#include "store/library_timing_store.h"

namespace ptxbench {
namespace {

json parsed(const std::string& text) { return json::parse(text, nullptr, false); }

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

class WorkspaceLibraryTimings : public LibraryTimingSource {
 public:
  explicit WorkspaceLibraryTimings(std::filesystem::path db) : db_(std::move(db)) {}

  bool find(const LibraryTimingScope& scope, const json& shape, std::vector<json>* rows,
            std::vector<std::string>* ignored, std::string* error) override {
    std::lock_guard lock(mu_);
    if (!open(error)) return false;
    LibraryTimingLookup found;
    if (auto s = store_->find(query(scope, shape), &found); !s.ok) return *error = s.error, false;
    *ignored = found.ignored;
    for (const auto& r : found.rows) {
      const json plan = parsed(r.plan), clocks = parsed(r.clocks);
      if (plan.is_discarded() || clocks.is_discarded()) {
        ignored->push_back("the row of " + r.library + " " + r.library_version + " measured " + r.measured_at +
                           ": its plan or clocks are not JSON");
        continue;
      }
      rows->push_back({{"gpu_uuid", r.gpu_uuid},
                       {"driver", r.driver},
                       {"clocks", clocks},
                       {"library", r.library},
                       {"library_version", r.library_version},
                       {"plan", plan},
                       {"median_ms", r.median_ms},
                       {"median_error", r.median_error},
                       {"samples", r.samples},
                       {"sm_clock_mhz", r.sm_clock_mhz},
                       {"lead_median_ms", r.lead_median_ms},
                       {"lead_samples", r.lead_samples},
                       {"measured_at", r.measured_at}});
    }
    return true;
  }

  bool put(const LibraryTimingScope& scope, const json& shape, const json& key, const json& m,
           std::string* error) override {
    std::lock_guard lock(mu_);
    if (!open(error)) return false;
    const LibraryTimingQuery q = query(scope, shape);
    LibraryTimingRow r;
    // The worker's own key: the environment it ran in, which may differ from the one the lookup used.
    r.gpu_uuid = key.value("gpu_uuid", ""), r.driver = key.value("driver", ""),
    r.clocks = key.value("clocks", json::object()).dump();
    r.library = key.value("library", ""), r.library_version = text_of(key.value("library_version", json("")));
    r.plan = key.value("plan", json::object()).dump();
    r.problem = q.problem, r.workload = q.workload, r.shape = q.shape, r.timing_config = q.timing_config;
    r.median_ms = m.value("median_ms", 0.0), r.median_error = m.value("median_error", 0.0),
    r.samples = m.value("samples", 0);
    r.sm_clock_mhz = m.value("sm_clock_mhz", 0.0);
    r.lead_median_ms = m.value("lead_median_ms", 0.0), r.lead_samples = m.value("lead_samples", 0);
    r.measured_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    r.measured_at = utc_timestamp_ms();
    if (r.gpu_uuid.empty()) return *error = "the worker reported no GPU UUID", false;
    if (const std::string why = why_unusable(r); !why.empty()) return *error = "not a clean timing: " + why, false;
    if (auto s = store_->put(r); !s.ok) return *error = s.error, false;
    return true;
  }

 private:
  static LibraryTimingQuery query(const LibraryTimingScope& scope, const json& shape) {
    const json env = scope.environment.is_object() ? scope.environment : json::object();
    return {env.value("gpu_uuid", ""),
            env.value("driver", ""),
            env.value("clocks", json::object()).dump(),
            scope.problem,
            scope.workload.dump(),
            shape.dump(),
            scope.timing_config.dump()};
  }
  bool open(std::string* error) {
    if (!store_) store_.emplace(db_);
    if (!store_->status().ok) return *error = store_->status().error, false;
    return true;
  }

  std::filesystem::path db_;
  std::mutex mu_;
  std::optional<LibraryTimingStore> store_;
};

}  // namespace

std::shared_ptr<LibraryTimingSource> workspace_library_timings(const std::filesystem::path& db_path) {
  return std::make_shared<WorkspaceLibraryTimings>(db_path);
}

}  // namespace ptxbench

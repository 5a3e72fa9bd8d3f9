// The library_timings table as typed rows: stored, found and replaced per GPU, driver, clocks and shape.
#include "store/library_timing_store.h"

#include <sqlite3.h>

#include <cmath>

#include "store/row_columns.h"
#include "store/content_tables.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;
using store_detail::Columns;

using store_detail::sql_error;

const Columns<LibraryTimingRow>& columns() {
  using C = store_detail::Make<LibraryTimingRow>;
  using R = LibraryTimingRow;
  static const Columns<LibraryTimingRow> c(
      "library_timings",
      {C::text("gpu_uuid", &R::gpu_uuid), C::text("driver", &R::driver), C::text("clocks", &R::clocks),
       C::text("library", &R::library), C::text("library_version", &R::library_version), C::text("plan", &R::plan),
       C::text("problem", &R::problem), C::text("workload", &R::workload), C::text("shape", &R::shape),
       C::text("timing_config", &R::timing_config), C::integer("format", &R::format),
       C::real("median_ms", &R::median_ms), C::real("median_error", &R::median_error),
       C::integer("samples", &R::samples), C::real("sm_clock_mhz", &R::sm_clock_mhz),
       C::real("lead_median_ms", &R::lead_median_ms), C::integer("lead_samples", &R::lead_samples),
       C::integer("measured_ms", &R::measured_ms), C::text("measured_at", &R::measured_at)});
  return c;
}

}  // namespace

std::string why_unusable(const LibraryTimingRow& r) {
  if (r.format != LibraryTimingRow::kFormat)
    return "row format " + std::to_string(r.format) + ", this build reads format " +
           std::to_string(LibraryTimingRow::kFormat);
  if (!std::isfinite(r.median_ms) || r.median_ms <= 0)
    return "median " + std::to_string(r.median_ms) + " ms is no time";
  if (!std::isfinite(r.median_error) || r.median_error < 0 || r.median_error >= 1)
    return "median error " + std::to_string(r.median_error) + " is no relative error";
  if (r.samples < 2) return std::to_string(r.samples) + " samples";
  if (r.lead_samples < 0 || r.lead_samples > r.samples || !std::isfinite(r.lead_median_ms) || r.lead_median_ms < 0 ||
      (r.lead_samples > 0) != (r.lead_median_ms > 0))
    return "its first samples' median (" + std::to_string(r.lead_median_ms) + " ms of " +
           std::to_string(r.lead_samples) + ") is no timing";
  if (json::parse(r.plan, nullptr, false).is_discarded()) return "its plan is not JSON";
  if (r.measured_ms <= 0) return "no measurement time";
  return "";
}

LibraryTimingStore::LibraryTimingStore(const std::filesystem::path& db_path) {
  std::error_code ec;
  if (db_path.has_parent_path()) std::filesystem::create_directories(db_path.parent_path(), ec);
  if (sqlite3_open(db_path.c_str(), &db_) != SQLITE_OK) {
    status_ = sql_error(db_, "opening " + db_path.string());
    return;
  }
  sqlite3_busy_timeout(db_, 15000);
  if (auto s = prepare_writer(db_, SchemaPart::library_timings, db_path, "library timings schema: "); !s.ok)
    status_ = s;
}

LibraryTimingStore::~LibraryTimingStore() { sqlite3_close(db_); }

DbStatus LibraryTimingStore::find(const LibraryTimingQuery& q, LibraryTimingLookup* out) {
  out->rows.clear();
  out->ignored.clear();
  if (!status_.ok) return status_;
  Statement st(db_, columns()
                        .select_sql("WHERE problem = :problem AND shape = :shape AND gpu_uuid = :gpu_uuid AND "
                                    "driver = :driver AND clocks = :clocks AND workload = :workload AND "
                                    "timing_config = :timing_config ORDER BY measured_ms DESC")
                        .c_str());
  if (!st.ok()) return sql_error(db_, "library timings: preparing the lookup");
  st.bind(":problem", q.problem).bind(":shape", q.shape).bind(":gpu_uuid", q.gpu_uuid).bind(":driver", q.driver);
  st.bind(":clocks", q.clocks).bind(":workload", q.workload).bind(":timing_config", q.timing_config);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    LibraryTimingRow r;
    std::string bad;
    if (!columns().read(st, &r, &bad)) {
      out->ignored.push_back("a stored row's " + bad + " is malformed");
      continue;
    }
    if (const std::string why = why_unusable(r); !why.empty()) {
      out->ignored.push_back("the row of " + r.library + " " + r.library_version + " measured " + r.measured_at + ": " +
                             why);
      continue;
    }
    out->rows.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return sql_error(db_, "library timings: reading");
  return {};
}

DbStatus LibraryTimingStore::put(const LibraryTimingRow& row) {
  if (!status_.ok) return status_;
  Statement st(db_, columns().insert_sql("INSERT OR REPLACE").c_str());
  if (!st.ok()) return sql_error(db_, "library timings: preparing the insert");
  columns().bind(st, row);
  if (st.step() != SQLITE_DONE) return sql_error(db_, "library timings: storing");
  return {};
}

}  // namespace ptxbench

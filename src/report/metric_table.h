// One table of the metrics report (docs/metrics.md, "Report tables"): a file in
// src/report/metric_tables/ defines the table's fields, fills its rows from the groups (calling a
// metric of src/metrics, or computing it there) and registers itself, with the grids it adds to the
// text view (text_view.h). build_metrics_report lists the registered tables by rank, so a new
// metric is that file, its test and its line in docs/metrics.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "metrics/grouping.h"
#include "metrics/interval.h"
#include "metrics/turn_model.h"
#include "report/metrics_report.h"
#include "report/result_schema.h"

namespace ptxbench::report {

// What every table is computed from.
struct MetricInput {
  const metrics::TurnSet& set;  // with --target seen, the copy whose target_executed is target_seen
  const ReportSettings& settings;
  const std::vector<metrics::Trajectory>& trajectories;
  const std::vector<metrics::Group>& groups;
  int max_turn = 0;  // the per-turn tables' last turn: the largest budget, run turn budget or stored turn
};

// The table, or nullopt when this report has none (the turns table with --no-turns, comparisons
// without --compare).
using MetricTableBuilder = std::optional<Table> (*)(const MetricInput& in);

struct MetricTableRegistrar {
  // `rank`: where the table comes in the report, lowest first.
  MetricTableRegistrar(int rank, MetricTableBuilder build);
};

// Every registered table of the report, in rank order.
std::vector<Table> build_metric_tables(const MetricInput& in);

// A table whose rows each start with the group's fields (group, arch, language, gpu, model,
// knowledge, run, split, problem), then `fields`.
Table grouped_table(std::string name, std::string title, std::string description, std::vector<Field> fields);
// A table of `fields` only.
Table plain_table(std::string name, std::string title, std::string description, std::vector<Field> fields);
// The group's values followed by `rest`: a row of a grouped_table.
std::vector<Value> with_group(const metrics::Group& g, std::vector<Value> rest);

Value rate_value(const metrics::Rate& r);                      // k/n, null when n is 0
Value interval_lo(const std::optional<metrics::Interval>& i);  // null without an interval
Value interval_hi(const std::optional<metrics::Interval>& i);
inline Value ll(long long v) { return Value(v); }

}  // namespace ptxbench::report

#define PTXBENCH_METRIC_TABLE_CAT2(a, b) a##b
#define PTXBENCH_METRIC_TABLE_CAT(a, b) PTXBENCH_METRIC_TABLE_CAT2(a, b)
// In the table's file: PTXBENCH_REGISTER_METRIC_TABLE(20, coverage_table);
#define PTXBENCH_REGISTER_METRIC_TABLE(rank, build)                                                               \
  static ::ptxbench::report::MetricTableRegistrar PTXBENCH_METRIC_TABLE_CAT(ptxbench_metric_table_, __COUNTER__)( \
      rank, build)

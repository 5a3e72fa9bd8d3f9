// Builds the metrics report (result schema, result_schema.h) from runs and turns: the meta block,
// then every table registered in src/report/metric_tables/ (metric_table.h), in rank order,
// computed once. Tables and fields: docs/metrics.md, "Report tables".
#pragma once
#include <string>
#include <vector>

#include "metrics/best_speedup.h"
#include "metrics/comparison.h"
#include "metrics/fast_p.h"
#include "metrics/grouping.h"
#include "metrics/turn_model.h"
#include "report/result_schema.h"

namespace ptxbench::report {

struct ReportSettings {
  std::vector<int> budgets{1, 4, 8};
  metrics::GroupBy group_by = metrics::parse_group_by("arch,model,knowledge,split,problem");
  metrics::BootstrapSettings bootstrap;
  metrics::FastpUnit fastp_unit = metrics::FastpUnit::trajectory;
  double fastp_step = 0.05;  // spacing of the p grid
  std::vector<metrics::ComparisonSpec> comparisons;
  std::vector<std::string> inputs;  // what was read, for the meta block
  std::string generator;            // "ptxbench 0.1.0 (commit ...)"; tests pass a fixed text
  bool turns_table = true;          // the per-turn table (large runs: thousands of rows)
  // Which flag the "target" metrics read: the strict target_executed (the targets did the problem's
  // work), or the paper's target_seen (some target instruction executed), for comparison with it.
  bool target_seen = false;
};

// "1,4,8" -> {1, 4, 8}: sorted, distinct, each >= 1; InputError for anything else or an empty list.
std::vector<int> parse_budgets(const std::string& text);

Report build_metrics_report(const metrics::TurnSet& set, const ReportSettings& settings);

}  // namespace ptxbench::report
